package io.coord.fence;

import io.coord.FencingToken;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link FenceGuard} kept in this process's memory: the reference implementation, and the right
 * one when the protected resource lives in the same process as the guard (a service that fronts a
 * store and checks tokens of its callers).
 */
public final class InMemoryFenceGuard implements FenceGuard {
    private static final Logger LOG = LoggerFactory.getLogger(InMemoryFenceGuard.class);

    private final ConcurrentHashMap<String, Long> highest = new ConcurrentHashMap<>();
    private final AtomicLong rejections = new AtomicLong();

    @Override
    public boolean admit(String resource, FencingToken token) {
        long value = token.value();
        long[] seen = new long[1];
        // compute() is atomic per key: check and record happen as one step.
        highest.compute(resource, (k, current) -> {
            seen[0] = current == null ? 0 : current;
            return current == null || value >= current ? Long.valueOf(value) : current;
        });
        if (value < seen[0]) {
            rejections.incrementAndGet();
            LOG.warn("fence rejected stale token {} for {}: highest seen is 0x{}", token, resource, Long.toHexString(seen[0]));
            return false;
        }
        return true;
    }

    @Override
    public long highest(String resource) {
        return highest.getOrDefault(resource, 0L);
    }

    @Override
    public long rejections() {
        return rejections.get();
    }
}

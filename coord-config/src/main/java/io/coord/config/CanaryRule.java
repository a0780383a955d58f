package io.coord.config;

import com.google.common.hash.Hashing;
import java.nio.charset.StandardCharsets;

/**
 * Who is in a canary: pure, no I/O. An instance is in a canary of {@code p} percent when the
 * bucket of its id, a stable hash into 0..9 999, is below {@code p × 100}. The same id always
 * lands in the same bucket (on every JVM, across restarts), so an instance does not flip in and
 * out of a canary; raising the percentage only adds instances; 100 % is everyone.
 */
final class CanaryRule {
    static final int BUCKETS = 10_000;

    private CanaryRule() {
    }

    /** The instance's bucket, 0..{@value #BUCKETS}-1: murmur3 (32-bit, fixed seed 0) of the UTF-8 id. */
    static int bucket(String instanceId) {
        int hash = Hashing.murmur3_32_fixed().hashString(instanceId, StandardCharsets.UTF_8).asInt();
        return (int) (Integer.toUnsignedLong(hash) % BUCKETS);
    }

    /** Whether {@code instanceId} applies a canary of {@code percent} (0 < percent <= 100, 0.01 resolution). */
    static boolean inCanary(String instanceId, double percent) {
        checkPercent(percent);
        return bucket(instanceId) < Math.round(percent * (BUCKETS / 100.0));
    }

    /** Throws {@link IllegalArgumentException} naming the value unless 0 < percent <= 100 and finite. */
    static void checkPercent(double percent) {
        if (!(percent > 0 && percent <= 100)) {
            throw new IllegalArgumentException("canary percent must be within (0, 100], got " + percent);
        }
    }
}

package io.coord.lock;

import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The holdings of one lock object that are still open, with the thread that asked for each. Not
 * ownership (handles own leases): only used to refuse a read-to-write upgrade, to anchor a read
 * taken under the same thread's write, and to explain a timeout that waited for itself.
 */
final class OpenHolds {
    private final Set<Holding> open = ConcurrentHashMap.newKeySet();

    void add(Holding holding) {
        open.add(holding);
        holding.onEnd(() -> open.remove(holding));
    }

    /** An open holding of {@code type} that the calling thread asked for. */
    Optional<Holding> ofCurrentThread(WaitRule.Type type) {
        Thread me = Thread.currentThread();
        return open.stream().filter(h -> h.acquiredBy == me && h.type == type && h.isOpen()).findFirst();
    }
}

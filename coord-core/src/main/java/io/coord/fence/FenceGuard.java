package io.coord.fence;

import io.coord.FencingToken;
import io.coord.StaleTokenException;

/**
 * The downstream half of fencing: a resource that remembers the highest token it has seen and
 * refuses anything lower. A holder that lost its lease but does not know it yet (a GC pause, a
 * SIGSTOP) still carries its old token; the guard stops its write.
 *
 * <p>Equal tokens are admitted: one lease may write many times. A rejection is not an error to
 * hide: implementations count and log it, because it proves a lost lease was caught.
 */
public interface FenceGuard {
    /**
     * Admits {@code token} for {@code resource} if it is at least the highest seen (and records it
     * as the highest); returns false, counts and logs if it is lower.
     */
    boolean admit(String resource, FencingToken token);

    /** Like {@link #admit}, but throws {@link StaleTokenException} naming both tokens on rejection. */
    default void enforce(String resource, FencingToken token) {
        if (!admit(resource, token)) {
            throw new StaleTokenException("stale fencing token " + token + " for resource \"" + resource
                    + "\": a newer token (" + highest(resource) + ") was already accepted; this holder lost its lease");
        }
    }

    /** The highest token value admitted for {@code resource}, or 0 if none. */
    long highest(String resource);

    /** How many tokens were rejected, over all resources. */
    long rejections();
}

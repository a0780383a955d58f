package io.coord;

/** A listener registration; closing it removes the listener. Idempotent, never throws. */
@FunctionalInterface
public interface Registration extends AutoCloseable {
    @Override
    void close();
}

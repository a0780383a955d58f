package io.coord.config;

/**
 * Told about what one {@link LiveConfig} applies and refuses.
 *
 * <p>Contract: callbacks run on the executor given at registration and never while Coord holds a
 * lock. (A direct executor, {@code Runnable::run}, runs them on the thread that applied the
 * change: usually ZooKeeper's event thread, so keep such a listener short and never block in it.)
 * The calls for one registration come one at a time, in the order the reader applied the changes, so versions seen by one listener only
 * increase (except that the end of a canary or a deleted key may move back to the released value
 * or the default, which comes as an ordinary change). A listener that throws is logged and does
 * not affect other listeners or the reader. A listener added after the reader initialized is not
 * told the current value: read it with {@link LiveConfig#get()}.
 */
public interface ConfigListener<T> {
    /** A new value was applied; {@link LiveConfig#get()} already returns it. */
    default void onChange(ConfigChange<T> change) {
    }

    /** An update was refused; the reader keeps its last good value. */
    default void onRejected(ConfigRejection rejection) {
    }
}

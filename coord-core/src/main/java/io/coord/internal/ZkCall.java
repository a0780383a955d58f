package io.coord.internal;

/** One ZooKeeper call through Curator, which declares {@code throws Exception}. */
@FunctionalInterface
public interface ZkCall<T> {
    T call() throws Exception;
}

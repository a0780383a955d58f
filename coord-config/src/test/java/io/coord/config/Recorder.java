package io.coord.config;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** A listener that keeps everything it is told, for assertions. */
final class Recorder<T> implements ConfigListener<T> {
    final List<ConfigChange<T>> changes = new CopyOnWriteArrayList<>();
    final List<ConfigRejection> rejections = new CopyOnWriteArrayList<>();
    final List<String> threads = new CopyOnWriteArrayList<>();

    @Override
    public void onChange(ConfigChange<T> change) {
        threads.add(Thread.currentThread().getName());
        changes.add(change);
    }

    @Override
    public void onRejected(ConfigRejection rejection) {
        rejections.add(rejection);
    }

    /** The version of the last change told, or -2 if none yet. */
    long lastVersion() {
        return changes.isEmpty() ? -2 : changes.get(changes.size() - 1).version();
    }

    boolean rejected(long version) {
        return rejections.stream().anyMatch(r -> r.version() == version);
    }

    ConfigRejection rejection(long version) {
        return rejections.stream().filter(r -> r.version() == version).findFirst().orElseThrow();
    }

    /** The revisions of the changes applied from ZooKeeper, in the order they were applied. */
    List<Long> liveRevisions() {
        return changes.stream().map(ConfigChange::current)
                .filter(v -> v.origin() == Versioned.Origin.LIVE || v.origin() == Versioned.Origin.CANARY)
                .map(Versioned::revision).toList();
    }
}

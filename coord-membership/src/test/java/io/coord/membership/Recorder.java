package io.coord.membership;

import io.coord.membership.ViewDiff.Change;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * A group listener that records every call, so a test can replay them and compare with views.
 * Thread-safe; calls for one registration arrive in order, so the record is in delivery order.
 */
final class Recorder<M> implements GroupListener<M> {
    private final List<Change<M>> changes = new ArrayList<>();
    private final List<Long> versions = new ArrayList<>();
    private final List<Group.Flap> flaps = new ArrayList<>();
    private GroupView<M> lastView;

    @Override
    public synchronized void onJoined(MemberInfo<M> member, GroupView<M> view) {
        changes.add(Change.joined(member));
    }

    @Override
    public synchronized void onLeft(MemberInfo<M> member, GroupView<M> view) {
        changes.add(Change.left(member));
    }

    @Override
    public synchronized void onUpdated(MemberInfo<M> before, MemberInfo<M> after, GroupView<M> view) {
        changes.add(Change.updated(before, after));
    }

    @Override
    public synchronized void onFlap(Group.Flap flap) {
        flaps.add(flap);
    }

    @Override
    public synchronized void onViewChanged(GroupView<M> view) {
        versions.add(view.version());
        lastView = view;
    }

    synchronized List<Change<M>> changes() {
        return List.copyOf(changes);
    }

    synchronized List<Long> versions() {
        return List.copyOf(versions);
    }

    synchronized List<Group.Flap> flaps() {
        return List.copyOf(flaps);
    }

    synchronized GroupView<M> lastView() {
        return lastView;
    }

    /** Every recorded call applied in order to an empty group (fails if one does not fit). */
    synchronized SortedMap<String, MemberInfo<M>> replayed() {
        return ViewDiff.replay(new TreeMap<>(), changes);
    }

    synchronized long count(ViewDiff.Kind kind) {
        return changes.stream().filter(c -> c.kind() == kind).count();
    }
}

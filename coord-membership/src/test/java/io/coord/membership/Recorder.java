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
    /** The changes told since the previous onViewChanged, and the view that ended them. */
    record Batch<M>(List<Change<M>> changes, GroupView<M> view) {
    }

    private final List<Change<M>> changes = new ArrayList<>();
    private final List<Change<M>> pending = new ArrayList<>();
    private final List<Batch<M>> batches = new ArrayList<>();
    private final List<Long> versions = new ArrayList<>();
    private final List<Group.Flap> flaps = new ArrayList<>();
    private GroupView<M> lastView;

    @Override
    public synchronized void onJoined(MemberInfo<M> member, GroupView<M> view) {
        changes.add(Change.joined(member));
        pending.add(changes.get(changes.size() - 1));
    }

    @Override
    public synchronized void onLeft(MemberInfo<M> member, GroupView<M> view) {
        changes.add(Change.left(member));
        pending.add(changes.get(changes.size() - 1));
    }

    @Override
    public synchronized void onUpdated(MemberInfo<M> before, MemberInfo<M> after, GroupView<M> view) {
        changes.add(Change.updated(before, after));
        pending.add(changes.get(changes.size() - 1));
    }

    @Override
    public synchronized void onFlap(Group.Flap flap) {
        flaps.add(flap);
    }

    @Override
    public synchronized void onViewChanged(GroupView<M> view) {
        versions.add(view.version());
        lastView = view;
        batches.add(new Batch<>(List.copyOf(pending), view));
        pending.clear();
    }

    synchronized List<Change<M>> changes() {
        return List.copyOf(changes);
    }

    synchronized List<Batch<M>> batches() {
        return List.copyOf(batches);
    }

    /**
     * Checks that every batch told exactly the differences between the view before it and its own
     * view, and that versions strictly grew; returns the number of batches checked.
     */
    synchronized int assertEveryBatchIsExactlyTheDifference() {
        GroupView<M> before = null;
        for (Batch<M> b : batches) {
            java.util.Map<String, MemberInfo<M>> from = before == null ? java.util.Map.of() : before.members();
            List<Change<M>> expected = ViewDiff.between(from, b.view().members());
            if (!expected.equals(b.changes())) {
                throw new AssertionError("batch ending at " + b.view() + " told " + b.changes() + " but the difference from "
                        + before + " is " + expected);
            }
            if (before != null && b.view().version() <= before.version()) {
                throw new AssertionError("version went from 0x" + Long.toHexString(before.version()) + " to 0x"
                        + Long.toHexString(b.view().version()) + " telling " + b.changes());
            }
            before = b.view();
        }
        return batches.size();
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

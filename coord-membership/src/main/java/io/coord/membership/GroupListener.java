package io.coord.membership;

/**
 * Told about a group's changes, as one observer sees them.
 *
 * <p>Contract: callbacks run on the executor given at registration, never on Curator's event
 * thread and never while Coord holds a lock; calls for one registration arrive one at a time, in
 * order. A listener that throws is logged and does not affect others.
 *
 * <p>What arrives: on registration, one {@link #onJoined} per member of the current view, then
 * {@link #onViewChanged}; afterwards, for each new view, its exact differences from the previous
 * one ({@link #onLeft}s, then {@link #onUpdated}s, then {@link #onJoined}s, each by member id; a
 * {@link #onFlap} right after the join that made it), then {@link #onViewChanged}. After a
 * reconnect or a session expiry the view is rebuilt from a fresh read and the listener gets the
 * differences between the last view it was told about and the rebuilt one: applying every call
 * in order to the first view gives the latest, with no call missing and none invented. Changes
 * that come and go between two reads (a member that joins and leaves while the connection is
 * down) are not seen: the view is what ZooKeeper held at each read. Pairs: every member that
 * joined leaves before its id joins again (a new incarnation of the same id is a leave then a
 * join).
 */
public interface GroupListener<M> {
    /** {@code member} is in the group; {@code view} is the view after this batch of changes. */
    default void onJoined(MemberInfo<M> member, GroupView<M> view) {
    }

    /** {@code member} (the incarnation last seen) is gone. */
    default void onLeft(MemberInfo<M> member, GroupView<M> view) {
    }

    /** The same incarnation's metadata changed. */
    default void onUpdated(MemberInfo<M> before, MemberInfo<M> after, GroupView<M> view) {
    }

    /** A member left and joined again within the flap window. */
    default void onFlap(Group.Flap flap) {
    }

    /**
     * A batch of changes is complete: {@code view} is now the group's view. Also called, alone,
     * when a re-read only moved the version (see {@link GroupView#version()}).
     */
    default void onViewChanged(GroupView<M> view) {
    }
}

package io.coord.membership;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * The pure rule behind listener events: the exact differences between two views, and the replay
 * that checks them. No I/O.
 *
 * <p>Rules:
 * <ul>
 *   <li>an id only in the new view: {@code JOINED};
 *   <li>an id only in the old view: {@code LEFT};
 *   <li>an id in both, same incarnation (czxid), different content (metadata, version, mzxid):
 *       {@code UPDATED}; same content: nothing;
 *   <li>an id in both with a different incarnation: the old one left and a new one joined, so
 *       {@code LEFT} of the old and {@code JOINED} of the new (never an update: the member was gone).
 * </ul>
 * Order: every {@code LEFT}, then every {@code UPDATED}, then every {@code JOINED}, each by id.
 * Lefts first means an id that changed incarnation is removed before it is added again, so
 * {@link #replay}ing the changes onto the old view gives exactly the new view, and every change
 * is one that replay needs: nothing is missing and nothing is invented.
 */
final class ViewDiff {
    enum Kind { JOINED, LEFT, UPDATED }

    /** One difference. {@code before} is absent exactly for JOINED, {@code after} exactly for LEFT. */
    record Change<M>(Kind kind, MemberInfo<M> before, MemberInfo<M> after) {
        Change {
            Objects.requireNonNull(kind, "kind");
            if ((before == null) != (kind == Kind.JOINED) || (after == null) != (kind == Kind.LEFT)) {
                throw new IllegalArgumentException(kind + " change with before=" + before + ", after=" + after);
            }
            if (kind == Kind.UPDATED && !before.sameIncarnation(after)) {
                throw new IllegalArgumentException("UPDATED across incarnations: " + before + " -> " + after);
            }
        }

        String memberId() {
            return after != null ? after.id() : before.id();
        }

        static <M> Change<M> joined(MemberInfo<M> m) {
            return new Change<>(Kind.JOINED, null, m);
        }

        static <M> Change<M> left(MemberInfo<M> m) {
            return new Change<>(Kind.LEFT, m, null);
        }

        static <M> Change<M> updated(MemberInfo<M> before, MemberInfo<M> after) {
            return new Change<>(Kind.UPDATED, before, after);
        }
    }

    private ViewDiff() {
    }

    static <M> List<Change<M>> between(Map<String, MemberInfo<M>> before, Map<String, MemberInfo<M>> after) {
        List<Change<M>> left = new ArrayList<>();
        List<Change<M>> updated = new ArrayList<>();
        List<Change<M>> joined = new ArrayList<>();
        for (MemberInfo<M> old : new TreeMap<>(before).values()) {
            MemberInfo<M> now = after.get(old.id());
            if (now == null || !now.sameIncarnation(old)) {
                left.add(Change.left(old));
            } else if (!now.equals(old)) {
                updated.add(Change.updated(old, now));
            }
        }
        for (MemberInfo<M> now : new TreeMap<>(after).values()) {
            MemberInfo<M> old = before.get(now.id());
            if (old == null || !old.sameIncarnation(now)) {
                joined.add(Change.joined(now));
            }
        }
        List<Change<M>> all = new ArrayList<>(left.size() + updated.size() + joined.size());
        all.addAll(left);
        all.addAll(updated);
        all.addAll(joined);
        return all;
    }

    /**
     * Applies {@code changes} to {@code base}. Fails with {@link IllegalStateException} on a change
     * that does not fit (a join of an id present, a leave or update of an incarnation absent): such
     * a change would have been invented or would follow a lost one.
     */
    static <M> SortedMap<String, MemberInfo<M>> replay(Map<String, MemberInfo<M>> base, List<Change<M>> changes) {
        TreeMap<String, MemberInfo<M>> members = new TreeMap<>(base);
        for (Change<M> c : changes) {
            MemberInfo<M> present = members.get(c.memberId());
            switch (c.kind()) {
                case JOINED -> {
                    if (present != null) {
                        throw new IllegalStateException("JOINED " + c.after() + " but " + present + " is present");
                    }
                    members.put(c.after().id(), c.after());
                }
                case LEFT -> {
                    if (!c.before().equals(present)) {
                        throw new IllegalStateException("LEFT " + c.before() + " but the view holds " + present);
                    }
                    members.remove(c.before().id());
                }
                case UPDATED -> {
                    if (!c.before().equals(present)) {
                        throw new IllegalStateException("UPDATED " + c.before() + " but the view holds " + present);
                    }
                    members.put(c.after().id(), c.after());
                }
            }
        }
        return members;
    }
}

package io.coord.membership;

import io.coord.CoordPath;
import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An immutable snapshot of a group, as one observer read it.
 *
 * <p>{@link #version()} is the highest ZooKeeper transaction id the snapshot reflects: the
 * group node's {@code pzxid} (the last member creation or deletion) or a member's {@code mzxid}
 * (the last metadata write), whichever is higher. zxids never go back, so versions never go back
 * for one observer ({@link Group} never installs an older read). A view is normally a true
 * snapshot (nothing changed while it was read: checked with one extra round trip), and then its
 * version names its content: two observers holding the same version hold the same members, and
 * every change moves the version. Only while a group changes faster than a read can complete
 * (eight tries in a row) does an observer install a view combining reads a few milliseconds
 * apart, and then only one with a higher version; the next quiet moment replaces it with a
 * snapshot.
 *
 * @param group   the group's name
 * @param version the highest zxid reflected (0 for a group never seen with members)
 * @param members the members by id, sorted by id
 */
public record GroupView<M>(String group, long version, SortedMap<String, MemberInfo<M>> members) {
    public GroupView {
        CoordPath.validateName(group);
        if (version < 0) {
            throw new IllegalArgumentException("view version must be >= 0, got " + version);
        }
        Objects.requireNonNull(members, "members");
        // A naturally ordered map is copied in linear time (TreeMap builds from sorted input): a
        // group of 500 members installs a view per change in each of 500 observers.
        TreeMap<String, MemberInfo<M>> copy = members.comparator() == null ? new TreeMap<>(members) : new TreeMap<>();
        if (members.comparator() != null) {
            copy.putAll(members);
        }
        for (Map.Entry<String, MemberInfo<M>> e : copy.entrySet()) {
            if (!e.getKey().equals(e.getValue().id())) {
                throw new IllegalArgumentException("view of " + group + ": key " + e.getKey() + " holds member " + e.getValue().id());
            }
        }
        members = Collections.unmodifiableSortedMap(copy);
    }

    /** A group with no members, before anything was read. */
    public static <M> GroupView<M> empty(String group) {
        return new GroupView<>(group, 0, new TreeMap<>());
    }

    public int size() {
        return members.size();
    }

    public boolean contains(String memberId) {
        return members.containsKey(memberId);
    }

    public Optional<MemberInfo<M>> member(String memberId) {
        return Optional.ofNullable(members.get(memberId));
    }

    /** The member ids, sorted. */
    public SortedSet<String> ids() {
        return Collections.unmodifiableSortedSet(new TreeSet<>(members.keySet()));
    }

    @Override
    public String toString() {
        return "GroupView[" + group + " v=0x" + Long.toHexString(version) + " " + members.keySet() + "]";
    }
}

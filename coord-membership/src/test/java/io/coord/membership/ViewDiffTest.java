package io.coord.membership;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.membership.ViewDiff.Change;
import io.coord.membership.ViewDiff.Kind;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The diff rule alone: exact differences, in a replayable order, nothing invented. */
class ViewDiffTest {
    private static long zxid = 100;

    static MemberInfo<String> member(String id, String meta) {
        long z = ++zxid;
        return new MemberInfo<>(id, meta, null, Instant.ofEpochMilli(z), 1, z, z, 0);
    }

    static MemberInfo<String> updated(MemberInfo<String> m, String meta) {
        long z = ++zxid;
        return new MemberInfo<>(m.id(), meta, null, m.joinedAt(), m.session(), m.czxid(), z, m.metadataVersion() + 1);
    }

    static Map<String, MemberInfo<String>> view(List<MemberInfo<String>> members) {
        Map<String, MemberInfo<String>> out = new TreeMap<>();
        members.forEach(m -> out.put(m.id(), m));
        return out;
    }

    @Test
    void identicalViewsHaveNoDifferences() {
        var v = view(List.of(member("a", "1"), member("b", "2")));
        assertEquals(List.of(), ViewDiff.between(v, new TreeMap<>(v)));
    }

    @Test
    void joinLeaveAndUpdateAreReportedInLeftUpdatedJoinedOrder() {
        MemberInfo<String> a = member("a", "1");
        MemberInfo<String> b = member("b", "1");
        MemberInfo<String> c = member("c", "1");
        var before = view(List.of(a, b));
        var after = view(List.of(updated(b, "2"), c));
        List<Change<String>> changes = ViewDiff.between(before, after);
        assertEquals(List.of(Kind.LEFT, Kind.UPDATED, Kind.JOINED), changes.stream().map(Change::kind).toList());
        assertEquals("a", changes.get(0).memberId());
        assertEquals("b", changes.get(1).memberId());
        assertEquals("c", changes.get(2).memberId());
    }

    @Test
    void aNewIncarnationOfTheSameIdIsALeaveAndAJoinNeverAnUpdate() {
        MemberInfo<String> old = member("a", "1");
        MemberInfo<String> again = member("a", "1");
        List<Change<String>> changes = ViewDiff.between(view(List.of(old)), view(List.of(again)));
        assertEquals(2, changes.size());
        assertEquals(Kind.LEFT, changes.get(0).kind());
        assertEquals(old, changes.get(0).before());
        assertEquals(Kind.JOINED, changes.get(1).kind());
        assertEquals(again, changes.get(1).after());
    }

    @Test
    void replayOfTheDifferencesGivesTheNewViewForRandomViews() {
        Random random = new Random(42);
        for (int round = 0; round < 2000; round++) {
            var before = randomView(random, new TreeMap<>());
            var after = randomView(random, before);
            List<Change<String>> changes = ViewDiff.between(before, after);
            assertEquals(new TreeMap<>(after), ViewDiff.replay(before, changes), "round " + round);
            // Nothing invented: each change is needed, so dropping any one breaks the replay.
            for (int i = 0; i < changes.size(); i++) {
                List<Change<String>> fewer = new ArrayList<>(changes);
                fewer.remove(i);
                SortedMap<String, MemberInfo<String>> partial;
                try {
                    partial = ViewDiff.replay(before, fewer);
                } catch (IllegalStateException expected) {
                    continue;
                }
                assertTrue(!partial.equals(new TreeMap<>(after)), "change " + changes.get(i) + " was not needed");
            }
        }
    }

    @Test
    void replayRefusesAChangeThatDoesNotFit() {
        MemberInfo<String> a = member("a", "1");
        var v = view(List.of(a));
        assertThrows(IllegalStateException.class, () -> ViewDiff.replay(v, List.of(Change.joined(member("a", "x")))));
        assertThrows(IllegalStateException.class, () -> ViewDiff.replay(v, List.of(Change.left(member("b", "x")))));
        assertThrows(IllegalStateException.class, () -> ViewDiff.replay(v, List.of(Change.left(member("a", "1")))));
        MemberInfo<String> other = member("z", "1");
        assertThrows(IllegalStateException.class, () -> ViewDiff.replay(v, List.of(Change.updated(other, updated(other, "2")))));
    }

    @Test
    void changesValidateTheirShape() {
        MemberInfo<String> a = member("a", "1");
        assertThrows(IllegalArgumentException.class, () -> new Change<>(Kind.JOINED, a, a));
        assertThrows(IllegalArgumentException.class, () -> new Change<>(Kind.LEFT, null, a));
        assertThrows(IllegalArgumentException.class, () -> Change.updated(a, member("a", "2")));
    }

    /** A view derived from {@code base}: some members leave, some update, some rejoin, some are new. */
    private static Map<String, MemberInfo<String>> randomView(Random random, Map<String, MemberInfo<String>> base) {
        Map<String, MemberInfo<String>> out = new TreeMap<>();
        for (MemberInfo<String> m : base.values()) {
            switch (random.nextInt(4)) {
                case 0 -> { } // left
                case 1 -> out.put(m.id(), updated(m, "u" + random.nextInt(3)));
                case 2 -> out.put(m.id(), member(m.id(), m.metadata())); // new incarnation
                default -> out.put(m.id(), m);
            }
        }
        for (int i = 0; i < random.nextInt(4); i++) {
            String id = "m" + random.nextInt(8);
            out.putIfAbsent(id, member(id, "j"));
        }
        return out;
    }
}

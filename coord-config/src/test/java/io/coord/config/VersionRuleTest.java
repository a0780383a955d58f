package io.coord.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.coord.config.VersionRule.Decision;
import io.coord.config.VersionRule.Seen;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class VersionRuleTest {
    @Test
    void aNewerRevisionAppliesTheSameIsNothingAndAnOlderIsStale() {
        Seen seen = new Seen(100, true);
        assertEquals(Decision.APPLY, VersionRule.present(seen, 101));
        assertEquals(Decision.SAME, VersionRule.present(seen, 100));
        assertEquals(Decision.STALE, VersionRule.present(seen, 99));
    }

    @Test
    void theFirstReadOfANodeAlwaysApplies() {
        assertEquals(Decision.APPLY, VersionRule.present(Seen.NEVER, 1));
        assertEquals(Decision.SAME, VersionRule.absent(Seen.NEVER, 5), "absent and never seen: nothing to change");
    }

    @Test
    void anAbsentNodeIsTrustedOnlyIfItsParentChangedAfterTheRevisionSeen() {
        Seen seen = new Seen(100, true);
        assertEquals(Decision.APPLY, VersionRule.absent(seen, 101), "deleted after what we saw");
        assertEquals(Decision.STALE, VersionRule.absent(seen, 100), "a server whose parent is not past our revision has not seen a delete");
        assertEquals(Decision.STALE, VersionRule.absent(seen, 50));
        assertEquals(Decision.APPLY, VersionRule.absent(seen, VersionRule.PARENT_MISSING), "a missing parent is a deletion");
    }

    @Test
    void aRejectedRevisionIsSeenSoTheSameBadValueIsNotJudgedTwiceAndOlderOnesStayStale() {
        Seen afterReject = new Seen(100, true).afterPresent(120); // rejected at 120: seen, but not applied
        assertEquals(Decision.SAME, VersionRule.present(afterReject, 120));
        assertEquals(Decision.STALE, VersionRule.present(afterReject, 110), "an older good value must not come back after a newer bad one");
        assertEquals(Decision.APPLY, VersionRule.present(afterReject, 121));
    }

    @Test
    void aNodeReadOnAStaleServerAfterItsDeleteIsNotResurrected() {
        Seen deleted = new Seen(100, true).afterAbsent(130);
        assertEquals(new Seen(130, false), deleted);
        assertEquals(Decision.STALE, VersionRule.present(deleted, 100), "the deleted version read from a lagging server");
        assertEquals(Decision.APPLY, VersionRule.present(deleted, 131), "re-created after the delete");
        assertEquals(Decision.SAME, VersionRule.absent(deleted, 130));
    }

    @Test
    void appliedRevisionsOnlyIncreaseWhateverOrderReadsArriveIn() {
        Random random = new Random(42);
        for (int run = 0; run < 200; run++) {
            List<Long> reads = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                reads.add(1 + (long) random.nextInt(40)); // duplicates and reordering, as racing reads would give
            }
            Seen seen = Seen.NEVER;
            long lastApplied = 0;
            for (long revision : reads) {
                if (VersionRule.present(seen, revision) == Decision.APPLY) {
                    assertEquals(true, revision > lastApplied, "applied " + revision + " after " + lastApplied);
                    lastApplied = revision;
                    seen = seen.afterPresent(revision);
                }
            }
            assertEquals(reads.stream().mapToLong(Long::longValue).max().getAsLong(), lastApplied, "the latest read is always reached");
        }
    }

    @Test
    void seenRefusesANegativeRevision() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new Seen(-1, false));
        assertEquals("maxRevision must be >= 0, got -1", e.getMessage());
    }
}

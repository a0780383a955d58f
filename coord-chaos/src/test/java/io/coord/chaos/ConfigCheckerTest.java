package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.coord.chaos.ConfigChecker.Applied;
import io.coord.chaos.ConfigChecker.Verdict;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ConfigCheckerTest {
    private static final long MS = 1_000_000;
    private static final long FINAL_AT = 1_000 * MS;
    private static final long BOUND = 2_000 * MS;
    private static final Set<Long> PUBLISHED = Set.of(1L, 2L, 3L, 5L);

    private static Verdict check(List<Applied> reports) {
        return ConfigChecker.check(Map.of("r1", reports), PUBLISHED, 5, FINAL_AT, BOUND, 100);
    }

    private static Applied at(long version, long revision, long seq, long ms) {
        return new Applied(version, revision, seq, 1, ms * MS);
    }

    @Test
    void aReaderThatSkipsVersionsButEndsOnTheFinalOneInTimeIsFine() {
        Verdict v = check(List.of(at(0, 10, 1, 100), at(2, 30, 3, 500), at(4, 50, 5, 1_500)));
        assertEquals(0, v.violations(), v.problems().toString());
        assertEquals(0, v.notConverged());
        assertEquals(500 * MS, v.slowestNanos());
    }

    @Test
    void aValueNeverPublishedThroughTheStoreOrRefusedByTheValidatorOrOversizeIsInvalid() {
        assertEquals(1, check(List.of(at(0, 10, 4, 100), at(4, 50, 5, 1_500))).invalid());
        assertEquals(1, check(List.of(at(0, 10, -4, 100), at(4, 50, 5, 1_500))).invalid());
        assertEquals(1, check(List.of(new Applied(0, 10, 3, 101, 100 * MS), at(4, 50, 5, 1_500))).invalid());
    }

    @Test
    void aLowerRevisionAfterAHigherOneIsARegression() {
        Verdict v = check(List.of(at(2, 30, 3, 100), at(1, 20, 2, 200), at(4, 50, 5, 1_500)));
        assertEquals(1, v.regressions(), v.problems().toString());
    }

    @Test
    void aReaderWhoseLastValueIsNotTheFinalWriteDidNotConverge() {
        Verdict v = check(List.of(at(4, 50, 5, 1_500), at(2, 30, 3, 1_600)));
        assertEquals(1, v.notConverged());
        assertEquals(0, check(List.of()).applied());
        assertEquals(1, check(List.of()).notConverged());
    }

    @Test
    void applyingTheFinalWriteAfterTheBoundIsLate() {
        Verdict v = check(List.of(at(4, 50, 5, 3_500)));
        assertEquals(1, v.late(), v.problems().toString());
        assertEquals(1, v.violations());
    }
}

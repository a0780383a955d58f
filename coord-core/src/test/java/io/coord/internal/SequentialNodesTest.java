package io.coord.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Who is next and whom to watch, without a server. */
class SequentialNodesTest {
    private static final String A = "_c_8f1e-lock-0000000003";
    private static final String B = "_c_11aa-lock-0000000001";
    private static final String C = "_c_0000-lock-0000000002";

    @Test
    void orderIsBySequenceSuffixNotByProtectionPrefix() {
        assertEquals(List.of(B, C, A), SequentialNodes.sorted(List.of(A, B, C, "read-0000000009x", "other"), "lock-"));
    }

    @Test
    void aMutexWaiterWatchesOnlyItsImmediatePredecessor() {
        List<String> sorted = List.of(B, C, A);
        assertEquals(Optional.empty(), SequentialNodes.toWatch(sorted, B, 1));
        assertEquals(Optional.of(B), SequentialNodes.toWatch(sorted, C, 1));
        assertEquals(Optional.of(C), SequentialNodes.toWatch(sorted, A, 1));
    }

    @Test
    void withNSlotsTheFirstNHoldAndOthersWatchNPlacesAhead() {
        List<String> sorted = List.of(B, C, A);
        assertEquals(Optional.empty(), SequentialNodes.toWatch(sorted, C, 2));
        assertEquals(Optional.of(B), SequentialNodes.toWatch(sorted, A, 2));
    }

    @Test
    void aNodeThatIsGoneIsAnErrorNotAGuess() {
        assertThrows(IllegalStateException.class, () -> SequentialNodes.toWatch(List.of(B), A, 1));
    }

    @Test
    void wrappedNegativeSuffixIsNotASequence() {
        assertEquals(-1, SequentialNodes.sequence("lock--2147483648"));
        assertEquals(2147483647L, SequentialNodes.sequence("lock-2147483647"));
    }
}

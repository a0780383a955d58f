package io.coord.cli.demo;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The demo's ledger: what its fence refuses, and what it records when the fence is off. */
class LedgerTest {
    private static final String NODE = "/locks/demo/ledger/lock-0000000001";

    @Test
    void aWriteWithAnOlderTokenThanOneAcceptedIsRefusedAndChangesNothing() {
        Ledger ledger = new Ledger(true);
        assertTrue(ledger.write("worker-1", 1, 10, 0x20, NODE));
        assertTrue(ledger.write("worker-1", 2, 30, 0x20, NODE)); // the same lease writes again
        assertFalse(ledger.write("worker-2", 3, 99, 0x1f, NODE));

        assertEquals(30, ledger.balance());
        assertEquals(Map.of(1L, 1, 2L, 1), ledger.applications());
        assertEquals(List.of(new Ledger.Rejection("worker-2", 3, 0x1f, 0x20)), ledger.rejections());
        assertEquals(List.of(), ledger.staleAccepted());
        assertEquals(0x20, ledger.highestToken());
    }

    @Test
    void withTheFenceOffAStaleWriteIsAcceptedAndRecordedAsStale() {
        Ledger ledger = new Ledger(false);
        assertTrue(ledger.write("worker-1", 1, 10, 0x20, NODE));
        assertTrue(ledger.write("worker-2", 1, 5, 0x1f, NODE));

        assertEquals(5, ledger.balance());
        assertEquals(Map.of(1L, 2), ledger.applications());
        assertEquals(List.of(new Ledger.StaleAccept("worker-2", 1, 0x1f, 0x20)), ledger.staleAccepted());
        assertEquals(List.of(), ledger.rejections());
    }
}

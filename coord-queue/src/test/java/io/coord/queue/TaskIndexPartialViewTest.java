package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.node.TextNode;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * From a disconnection until the watch's full read after the reconnect, the index offers no task:
 * what it has read by then may be only the newest tasks (watch events flow again before the
 * resync's reads), and a claim would pass over older ones (see {@link TaskIndex#viewPartial}).
 */
class TaskIndexPartialViewTest {
    private static final long NOW = 1_000_000L;

    private static void read(TaskIndex index, String name) {
        index.taskRead(name, TaskRecord.fresh(TextNode.valueOf(name), 0, NOW, null, 3, ""), 0, null);
    }

    private static List<String> offered(TaskIndex index) {
        return index.choose(NOW, 0).candidates().stream().map(ClaimRule.Entry::name).toList();
    }

    @Test
    void aPartialViewOffersNothingUntilTheFullReadIsDone() {
        TaskIndex index = new TaskIndex();
        read(index, "task-0000000001");
        assertEquals(List.of("task-0000000001"), offered(index));

        index.viewPartial(System.nanoTime());
        index.reconnected(System.nanoTime());
        read(index, "task-0000000900"); // an event after the reconnect, read before the resync's reads
        assertTrue(offered(index).isEmpty(), "nothing is offered while the view may lack older tasks: " + offered(index));
        assertEquals(Long.MAX_VALUE, index.choose(NOW, 0).nextReadyMillis(), "the wait ends on viewWhole, not on a clock");

        long seen = index.changes();
        read(index, "task-0000000500"); // the resync's reads
        index.viewWhole();
        assertTrue(index.changes() > seen, "viewWhole wakes the waiting claimers");
        assertEquals("task-0000000001", offered(index).get(0), "then the oldest goes first: " + offered(index));
    }

    @Test
    void aFullReadThatNeverFinishesStopsClaimsOnlyForTheBoundAfterTheReconnect() {
        TaskIndex index = new TaskIndex();
        read(index, "task-0000000001");
        long longAgo = System.nanoTime() - TaskIndex.MAX_PARTIAL_WAIT_NANOS - 1;
        index.viewPartial(longAgo);
        index.reconnected(longAgo);
        assertEquals(List.of("task-0000000001"), offered(index), "past the bound, claims choose by what was read");

        index.reconnected(System.nanoTime()); // a later reconnect starts the bound again
        assertTrue(offered(index).isEmpty(), "within the bound of the last reconnect, nothing is offered");
    }
}

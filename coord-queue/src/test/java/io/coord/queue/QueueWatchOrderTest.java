package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The order a resync reads a listing in, without a server. */
class QueueWatchOrderTest {
    private static List<String> tasks(int... seqs) {
        return IntStream.of(seqs).mapToObj(i -> String.format("task-%010d", i)).toList();
    }

    @Test
    void aListingInTheServersHashOrderIsReadOldestFirst() {
        // what a hash set of 110..123 lists (the order the chaos run's consumer claimed 120 and 123 in)
        List<String> hashOrder = tasks(120, 123, 121, 122, 116, 117, 114, 115, 112, 113, 110, 111, 118, 119);
        assertEquals(tasks(110, 111, 112, 113, 114, 115, 116, 117, 118, 119, 120, 121, 122, 123), QueueWatch.oldestFirst(hashOrder));
    }

    @Test
    void whateverOrderAJavaHashSetGivesAndWhatIsNoTaskIsLeftOut() {
        List<String> names = new java.util.ArrayList<>(new HashSet<>(tasks(IntStream.range(1490, 1560).toArray())));
        names.add("not-a-task");
        names.add("task-0000001500~9f3c");
        assertEquals(tasks(IntStream.range(1490, 1560).toArray()), QueueWatch.oldestFirst(names));
    }
}

package io.coord.queue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Base64;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The unique part of an unkeyed task's name (issue 18: a counter, not 8 secure random bytes per
 * task) keeps its documented form, 64 bits as 11 URL-safe Base64 characters, and never repeats
 * across the queues of one JVM.
 */
class UnkeyedNamesTest {
    @Test
    void theUniquePartIsTheUrlSafeBase64OfItsSixtyFourBits() {
        for (long bits : List.of(0L, 1L, -1L, Long.MIN_VALUE, Long.MAX_VALUE, 0x0123456789abcdefL, 0xfedcba9876543210L, 63L, 64L)) {
            String expected = Base64.getUrlEncoder().withoutPadding().encodeToString(ByteBuffer.allocate(8).putLong(bits).array());
            assertEquals(expected, QueueLayout.unique(bits), Long.toHexString(bits));
        }
    }

    @Test
    void prefixesOfDifferentQueuesInOneJvmNeverRepeat() {
        QueueLayout one = new QueueLayout("one");
        QueueLayout two = new QueueLayout("two");
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100_000; i++) {
            for (QueueLayout layout : List.of(one, two)) {
                String prefix = layout.unkeyedPrefix();
                assertTrue(prefix.matches("task-[A-Za-z0-9_-]{11}-"), prefix);
                assertTrue(seen.add(prefix.substring(5, 16)), "repeated: " + prefix);
            }
        }
    }
}

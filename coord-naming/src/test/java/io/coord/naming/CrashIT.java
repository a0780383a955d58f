package io.coord.naming;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Client processes killed with SIGKILL: one taking IDs (a gap at most, never a duplicate) and one
 * with a registered instance (gone from resolvers once its session expires, nothing re-registers it).
 */
@Tag("fault")
class CrashIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    @RegisterExtension
    final NamingThreadsCheck threads = new NamingThreadsCheck();

    private static final Duration LINE = Duration.ofSeconds(30);
    private static final int BLOCK = 100;

    @Test
    void aClientKilledMidBlockLeavesAGapNeverADuplicate() throws Exception {
        CoordClient survivor = zk.newClient();
        List<Long> childIds = new ArrayList<>();
        try (BlockIds ids = BlockIds.open(survivor, "crash", IdOptions.builder().blockSize(BLOCK).build());
             ChildJvm child = ChildJvm.start(IdChild.class.getName(), zk.connectString(), zk.namespace(), "blocks", "crash",
                     String.valueOf(BLOCK))) {
            assertEquals("ready", child.expectLine("ready", LINE));
            // 250 IDs: the child is in the middle of its third block and has prefetched the fourth
            for (int i = 0; i < 250; i++) {
                childIds.add(parse(child.expectLine("an ID", LINE)));
            }
            child.kill9();
            drain(child).forEach(l -> childIds.add(parse(l)));
            // Blocks of one size are aligned on the counter's base within an incarnation.
            long base = IdRule.blockBase(survivor.curator().checkExists().forPath("/ids/crash/blocks").getCzxid());
            Set<Long> childBlocks = new HashSet<>();
            for (long id : childIds) {
                childBlocks.add(Math.floorDiv(id - base, BLOCK));
            }
            Set<Long> seen = new HashSet<>(childIds);
            assertEquals(childIds.size(), seen.size(), "the child itself repeated an ID");
            for (int i = 0; i < 5 * BLOCK; i++) {
                long id = ids.next();
                assertTrue(seen.add(id), "ID " + id + " was handed out to the killed client too");
                assertFalse(childBlocks.contains(Math.floorDiv(id - base, BLOCK)),
                        "ID " + id + " is from a block the killed client held (its unused rest must stay a gap)");
            }
        }
    }

    @Test
    void aClientKilledMidCallLeavesNoDuplicateAndNoOrderViolation() throws Exception {
        CoordClient survivor = zk.newClient();
        List<Long> childIds = new ArrayList<>();
        SequenceIds ids = SequenceIds.open(survivor, "crash-seq");
        try (ChildJvm child = ChildJvm.start(IdChild.class.getName(), zk.connectString(), zk.namespace(), "sequence", "crash-seq", "1")) {
            assertEquals("ready", child.expectLine("ready", LINE));
            for (int i = 0; i < 200; i++) {
                childIds.add(parse(child.expectLine("an ID", LINE)));
            }
            child.kill9(); // most likely with a write in flight
            drain(child).forEach(l -> childIds.add(parse(l)));
        }
        long highestBeforeKill = childIds.stream().mapToLong(Long::longValue).max().orElseThrow();
        Set<Long> seen = new HashSet<>(childIds);
        for (int i = 0; i < 200; i++) {
            long id = ids.next();
            assertTrue(id > highestBeforeKill, "ID " + id + " is not above " + highestBeforeKill + ", returned before the kill");
            assertTrue(seen.add(id), "duplicate " + id);
        }
    }

    @Test
    void aKilledServiceProcessDisappearsFromResolversWithinTheSessionTimeout() throws Exception {
        try (Discovery callers = Discovery.open(zk.newClient());
             Resolver resolver = callers.resolver("orders.prod", Strategy.ROUND_ROBIN);
             ChildJvm child = ChildJvm.start(AnnounceChild.class.getName(), zk.connectString(), zk.namespace(), "orders.prod", "doomed")) {
            assertEquals("registered", child.expectLine("registration", LINE));
            Awaits.until("the child's instance to appear", Duration.ofSeconds(5), () -> resolver.available().size() == 1);
            child.kill9();
            // RELIABILITY.md: a killed instance disappears within the session timeout (4 s) + 2 s.
            Awaits.until("the killed instance to disappear", ZooKeeperExtension.DEFAULT_SESSION_TIMEOUT.plusSeconds(2), () -> resolver.all().isEmpty());
            assertTrue(resolver.resolve().isEmpty());
        }
    }

    /** What the child printed before it died and was not read yet. */
    private static List<String> drain(ChildJvm child) {
        List<String> lines = new ArrayList<>();
        for (var line = child.readLine(Duration.ZERO); line.isPresent(); line = child.readLine(Duration.ZERO)) {
            lines.add(line.get());
        }
        return lines;
    }

    private static long parse(String line) {
        if (!line.startsWith("id ")) {
            throw new AssertionError("unexpected line from the child: " + line);
        }
        return Long.parseLong(line.substring(3));
    }
}

package io.coord.lock;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.FencingToken;
import io.coord.fence.InMemoryFenceGuard;
import io.coord.test.Awaits;
import io.coord.test.ChildJvm;
import io.coord.test.ZooKeeperExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A lock holder in another process is frozen (SIGSTOP) — the GC-pause incident. Past its session,
 * it becomes a stale actor: fencing must stop everything it writes after resuming, and the unfenced
 * control must show that it would otherwise overwrite the new holder. Shorter than its session,
 * the stall monitor makes its lease UNCERTAIN until a round trip confirms it.
 */
@Tag("fault")
class PausedHolderIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    private static final CoordPath LOCK = Locks.path("ledger", "acct-1");
    private static final CoordPath TARGET = CoordPath.of("/data/acct-1");

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    private ChildJvm holder(Duration session) {
        return ChildJvm.start(LockHolderChild.class.getName(), SERVER.connectString(), SERVER.namespace(),
                String.valueOf(session.toMillis()), LOCK.value(), TARGET.value());
    }

    @Test
    void aHolderPausedPastItsSessionHasEveryWriteAfterResumingFencedOffWhileAnUnfencedWriteGetsThrough() throws Exception {
        CoordClient observer = SERVER.newClient();
        observer.curator().create().creatingParentsIfNeeded().forPath(TARGET.value(), utf8("initial"));
        InMemoryFenceGuard guard = new InMemoryFenceGuard();
        Duration childSession = Duration.ofSeconds(2);
        try (ChildJvm child = holder(childSession)) {
            String[] held = child.expectLine("the child holds the lock", Duration.ofSeconds(30)).split(" ");
            assertEquals("HELD", held[0], child.stderrTail());
            long childToken = Long.parseLong(held[1]);
            assertTrue(guard.admit("acct-1", token(childToken)), "the child's write before the pause is accepted");
            assertEquals("FENCED ok", child.request("fenced-write child-before-pause", Duration.ofSeconds(10)));

            child.pause();
            LockLease next = Locks.mutex(SERVER.newClient(), LOCK).acquire(childSession.multipliedBy(8));
            assertTrue(next.token().value() > childToken, "the new holder's token is higher");
            assertTrue(guard.admit("acct-1", next.token()));
            next.guardedSetData(TARGET, utf8("new-holder"));
            int versionAfterNewHolder = observer.curator().checkExists().forPath(TARGET.value()).getVersion();

            // Everything the frozen process would do next is already queued when it wakes up.
            for (String command : List.of("guard-write stale-1", "fenced-write stale-2", "raw-fenced-write stale-3",
                    "plain-write stale-4")) {
                child.send(command);
            }
            child.resume();
            List<String> replies = new ArrayList<>();
            List<String> events = new ArrayList<>();
            while (replies.size() < 4) {
                String line = expectLine(child);
                (line.startsWith("EVENT ") ? events : replies).add(line);
            }

            System.out.println("paused child replied " + replies + ", events " + events);
            String[] guardWrite = replies.get(0).split(" ");
            assertEquals("GUARDWRITE", guardWrite[0], replies.toString());
            assertFalse(guard.admit("acct-1", token(Long.parseLong(guardWrite[1]))), "the fence guard rejects the stale token");
            assertEquals(1, guard.rejections());
            assertTrue(replies.get(1).startsWith("FENCED refused"), "the guarded ZooKeeper write is refused: " + replies);
            assertTrue(replies.get(2).startsWith("RAWFENCED refused"), "the server refuses multi(check, setData): " + replies);
            // The control: the same stale process, writing without a fence, overwrites the new holder.
            assertEquals("PLAIN ok", replies.get(3), replies.toString());
            Stat stat = new Stat();
            byte[] now = observer.curator().getData().storingStatIn(stat).forPath(TARGET.value());
            assertArrayEquals(utf8("stale-4"), now, "the unfenced stale write got through (the violation fencing prevents)");
            assertEquals(versionAfterNewHolder + 1, stat.getVersion(), "only the unfenced write landed after the new holder's");
            Awaits.until("the child learns its lease is lost", Duration.ofSeconds(20), () -> {
                child.readLine(Duration.ofMillis(100)).ifPresent(events::add);
                return events.contains("EVENT lost");
            });
            assertFalse(events.contains("EVENT restored"), "a lease lost to expiry is never restored: " + events);
            next.close();
        }
    }

    @Test
    void aStallShorterThanTheSessionMakesTheLeaseUncertainThenAcquiredWithTheSameToken() throws Exception {
        // Session 8 s: the stall monitor's threshold is a third (2.7 s); a 4 s freeze passes it but
        // expires nothing (the client's read timeout is 5.3 s, the server's session 8 s).
        Duration childSession = Duration.ofSeconds(8);
        try (ChildJvm child = holder(childSession)) {
            String[] held = child.expectLine("the child holds the lock", Duration.ofSeconds(30)).split(" ");
            assertEquals("HELD", held[0], child.stderrTail());
            child.pause();
            Awaits.hold(Duration.ofSeconds(4)); // the fault must last: a freeze longer than the stall threshold
            child.resume();
            assertEquals("EVENT uncertain", expectLine(child), child.stderrTail());
            assertEquals("EVENT restored", expectLine(child), "confirmed by one round trip");
            assertEquals("STATE ACQUIRED " + held[1], child.request("state", Duration.ofSeconds(10)), "same lease, same token");
            LockInfo info = Locks.inspect(SERVER.newClient(), LOCK);
            assertEquals(Long.parseLong(held[1]), info.holder().orElseThrow().token(), "it still holds the lock");
            child.send("exit");
            assertEquals(0, child.awaitExit(Duration.ofSeconds(20)));
        }
    }

    private static String expectLine(ChildJvm child) {
        Optional<String> line = child.readLine(Awaits.scaled(Duration.ofSeconds(20)));
        return line.orElseThrow(() -> new AssertionError("no reply from the child; its log:\n" + child.stderrTail()));
    }

    private static FencingToken token(long value) {
        return new FencingToken(value, LOCK.child("child"));
    }
}

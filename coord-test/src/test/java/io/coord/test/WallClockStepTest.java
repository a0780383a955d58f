package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * F12: a wall-clock step on one client, with libfaketime (Debian package {@code faketime})
 * preloaded into a child JVM through {@link SteppedClock}. {@code System.nanoTime} stays real
 * ({@code FAKETIME_DONT_FAKE_MONOTONIC=1}); the offset is re-read from a file once a second, so the
 * test can step the clock while the child runs.
 *
 * <p>Skipped, with one line saying what to install, where libfaketime is missing; {@code .ci/run}
 * installs it, so CI always runs this.
 */
@Tag("fault")
class WallClockStepTest {
    private static final Duration SESSION = Duration.ofSeconds(4);

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    static ChildJvm fakedProbe(String connectString, SteppedClock clock) {
        return clock.applyTo(ChildJvm.builder(ProbeClient.class.getName())
                .args(connectString, Long.toString(SESSION.toMillis()))).start();
    }

    private static long[] clock(ChildJvm child) {
        String[] parts = child.request("clock", Duration.ofSeconds(5)).split(" ");
        return new long[] {Long.parseLong(parts[1]), Long.parseLong(parts[2])};
    }

    /**
     * libfaketime's own "monotonic fix", which it switches on by itself on current glibc, makes every
     * timed wait in the child return at once ({@link SteppedClock}): the child then busy-loops and
     * its bounded waits end early. A timed wait under the stepped clock must last as asked, before
     * and after a step.
     */
    @Test
    void aTimedWaitUnderTheSteppedClockLastsAsLongAsAsked() throws Exception {
        Assumptions.assumeTrue(SteppedClock.available(), SteppedClock.MISSING);
        try (SteppedClock steppedClock = SteppedClock.create();
             ChildJvm stepped = fakedProbe(zk.connectString(), steppedClock)) {
            stepped.expectLine("ready", Duration.ofSeconds(90));
            assertTimedWaitsLastAsAsked(stepped, "at real time");
            long[] before = clock(stepped);
            steppedClock.set(Duration.ofHours(2));
            Awaits.until("the child's wall clock to step forward two hours", SteppedClock.LAG.plusSeconds(5),
                    () -> clock(stepped)[0] - before[0] > 7_000_000);
            assertTimedWaitsLastAsAsked(stepped, "two hours ahead");
        }
    }

    private static void assertTimedWaitsLastAsAsked(ChildJvm child, String when) {
        int asked = 200;
        List<Long> waited = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            waited.add(Long.parseLong(child.request("wait " + asked, Duration.ofSeconds(10)).split(" ")[1]));
        }
        // A wait may end early on a rare spurious wake-up; under the bug every one does.
        long early = waited.stream().filter(ms -> ms < asked).count();
        assertTrue(early <= 1, "timed waits of " + asked + " ms in the child " + when + " lasted " + waited + " ms");
    }

    @Test
    void aBackwardStepWhileSuspendedKeepsCuratorFromDeclaringTheDeadSessionLost() throws Exception {
        Assumptions.assumeTrue(SteppedClock.available(), SteppedClock.MISSING);
        CoordClient observer = zk.newClient();
        try (SteppedClock steppedClock = SteppedClock.create();
             ClientProxy proxy = ClientProxy.to(zk.ensemble());
             ChildJvm stepped = fakedProbe(proxy.connectString(), steppedClock);
             ChildJvm steady = ChildJvm.start(ProbeClient.class.getName(), proxy.connectString(), Long.toString(SESSION.toMillis()))) {
            String steppedSession = stepped.expectLine("ready", Duration.ofSeconds(90)).split(" ")[1];
            String steadySession = steady.expectLine("ready", Duration.ofSeconds(30)).split(" ")[1];
            String path = "/" + zk.namespace() + "/stepped";
            assertEquals("created " + path, stepped.request("ephemeral " + path, Duration.ofSeconds(5)));

            long frozenAt = System.nanoTime();
            proxy.freeze();
            Awaits.until("the stepped child to be suspended", SESSION.plusSeconds(3),
                    () -> stepped.request("events", Duration.ofSeconds(5)).contains("suspended:" + steppedSession));
            // Curator noted the wall-clock time of SUSPENDED; now the clock goes back an hour.
            long[] before = clock(stepped);
            steppedClock.set(Duration.ofHours(-1));
            // libfaketime re-reads its offset file once a second (SteppedClock.LAG)
            long[] after = Awaits.value("the child's wall clock to step back an hour", SteppedClock.LAG.plusSeconds(5), () -> {
                long[] now = clock(stepped);
                return now[0] - before[0] < -3_500_000 ? Optional.of(now) : Optional.empty();
            });
            long monoMs = (after[1] - before[1]) / 1_000_000;
            assertTrue(monoMs >= 0 && monoMs < Awaits.scaled(SteppedClock.LAG.plusSeconds(5)).toMillis(),
                    "its nanoTime kept running normally: " + monoMs + " ms");

            Awaits.until("the server to expire the stepped child's session", SESSION.plusSeconds(3),
                    () -> FaultsTest.exists(observer, "/stepped") == null);
            // The control child, same freeze, no step: Curator declares its session lost.
            Awaits.until("the steady child's session to end", SESSION.multipliedBy(2).plusSeconds(3),
                    () -> steady.request("session", Duration.ofSeconds(5)).contains("EXPIRED")
                            || steady.request("events", Duration.ofSeconds(5)).contains("ended:" + steadySession + ":EXPIRED"));
            long steadyLostMs = (System.nanoTime() - frozenAt) / 1_000_000;
            String steppedState = stepped.request("session", Duration.ofSeconds(5));
            long frozenMs = (System.nanoTime() - frozenAt) / 1_000_000;
            assertEquals("session " + steppedSession + " SUSPENDED", steppedState,
                    "after the step back, the dead session is still only SUSPENDED " + frozenMs + " ms into the freeze");

            proxy.unfreeze();
            // On reconnect the server says "expired": the stepped child does learn, but only then.
            String fresh = Awaits.value("the stepped child's new session", Duration.ofSeconds(15), () -> {
                String[] s = stepped.request("session", Duration.ofSeconds(5)).split(" ");
                return !s[1].equals(steppedSession) && s[2].equals("CONNECTED") ? Optional.of(s[1]) : Optional.empty();
            });
            System.out.printf("F12 (session %d ms, wall clock stepped back 1 h while SUSPENDED): steady child LOST after %d ms"
                    + " of freeze; stepped child still SUSPENDED at %d ms although the server had expired it; new session %s only after the"
                    + " network healed%n", SESSION.toMillis(), steadyLostMs,
                    frozenMs, fresh);
        }
    }
}

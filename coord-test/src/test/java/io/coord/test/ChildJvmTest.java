package io.coord.test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import java.time.Duration;
import java.util.Optional;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Clients in child JVMs: F1 (SIGSTOP past the session timeout) and F13 (kill -9). */
class ChildJvmTest {
    private static final Duration SESSION = Duration.ofSeconds(2);

    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private ChildJvm probe() {
        return ChildJvm.start(ProbeClient.class.getName(), zk.connectString(), Long.toString(SESSION.toMillis()));
    }

    /** "ready 0x<id> <negotiated>" → the session id in hex. */
    private static String ready(ChildJvm child) {
        String line = child.expectLine("ready", Duration.ofSeconds(30));
        assertTrue(line.startsWith("ready 0x"), line);
        assertTrue(line.endsWith(" " + SESSION.toMillis()), "negotiated timeout: " + line);
        return line.split(" ")[1];
    }

    @Test
    void aChildAnswersLineByLineAndUsesTheTestClasspath() {
        assertTrue(ChildJvm.classpath().contains("test-classes"), "the child can load test classes");
        try (ChildJvm child = probe()) {
            String session = ready(child);
            assertEquals("pong", child.request("ping", Duration.ofSeconds(5)));
            assertEquals("session " + session + " CONNECTED", child.request("session", Duration.ofSeconds(5)));
        }
    }

    @Test
    void closeDestroysEvenAPausedChild() {
        ChildJvm child = probe();
        long pid;
        try {
            ready(child);
            pid = child.pid();
            child.pause();
        } finally {
            child.close();
        }
        assertFalse(child.isAlive());
        assertTrue(ProcessHandle.of(pid).map(p -> !p.isAlive()).orElse(true), "no orphan left behind");
    }

    @Test
    void pauseReturnsOnlyOnceTheChildHasStoppedAndResumeLetsItAnswer() {
        // kill -STOP returns before every thread has stopped; pause() must not (CI under load once
        // got a "pong" to a ping sent after pause() had returned). Each round asks again.
        try (ChildJvm child = probe()) {
            ready(child);
            for (int round = 0; round < 10; round++) {
                child.pause();
                child.send("ping");
                assertEquals(Optional.empty(), child.readLine(Duration.ofMillis(200)), "round " + round + ": a paused child does not answer");
                child.resume();
                assertEquals("pong", child.expectLine("round " + round + ": the ping sent while paused", Duration.ofSeconds(5)));
            }
        }
    }

    @Test
    @Tag("fault")
    void aPausedChildStopsAnsweringLosesItsSessionWhilePausedAndNoticesOnResume() throws Exception {
        CoordClient observer = zk.newClient();
        String path = "/" + zk.namespace() + "/paused";
        try (ChildJvm child = probe()) {
            String oldSession = ready(child);
            assertEquals("created " + path, child.request("ephemeral " + path, Duration.ofSeconds(5)));
            assertNotNull(observer.curator().checkExists().forPath("/paused"));

            long pausedAt = System.nanoTime();
            child.pause();
            child.send("ping");
            assertEquals(Optional.empty(), child.readLine(Duration.ofMillis(1000)), "a paused child does not answer");
            Duration expired = Awaits.until("the paused child's ephemeral to vanish", SESSION.plusSeconds(3),
                    () -> FaultsTest.exists(observer, "/paused") == null);
            Duration sinceFreeze = Duration.ofNanos(System.nanoTime() - pausedAt);
            Awaits.hold(SESSION.multipliedBy(5).dividedBy(2).minus(sinceFreeze).isNegative() ? Duration.ZERO
                    : SESSION.multipliedBy(5).dividedBy(2).minus(sinceFreeze));
            long pausedNanos = System.nanoTime() - pausedAt;
            child.resume();

            assertEquals("pong", child.expectLine("the ping sent while paused", Duration.ofSeconds(5)));
            long resumedAt = System.nanoTime();
            String fresh = Awaits.value("the child to run on a new session", Duration.ofSeconds(15), () -> {
                String[] s = child.request("session", Duration.ofSeconds(5)).split(" ");
                return !s[1].equals(oldSession) && s[2].equals("CONNECTED") ? Optional.of(s[1]) : Optional.empty();
            });
            Duration noticed = Duration.ofNanos(System.nanoTime() - resumedAt);
            String events = child.request("events", Duration.ofSeconds(5));
            assertTrue(events.contains("ended:" + oldSession + ":EXPIRED"), events);
            assertTrue(events.contains("new:" + fresh), events);
            assertNotEquals(oldSession, fresh);
            System.out.printf("F1 (session %d ms): ephemeral gone %d ms into the pause, paused %d ms, new session %d ms after resume; %s%n",
                    SESSION.toMillis(), expired.toMillis() + 1000, pausedNanos / 1_000_000, noticed.toMillis(), events);
        }
    }

    @Test
    @Tag("fault")
    void killNineLeavesTheEphemeralUntilTheSessionTimeoutThenItVanishes() throws Exception {
        CoordClient observer = zk.newClient();
        String path = "/" + zk.namespace() + "/killed";
        try (ChildJvm child = probe()) {
            ready(child);
            assertEquals("created " + path, child.request("ephemeral " + path, Duration.ofSeconds(5)));
            long killedAt = System.nanoTime();
            child.kill9();
            assertFalse(child.isAlive());
            assertNotNull(observer.curator().checkExists().forPath("/killed"),
                    "a killed client sends no closeSession: the server keeps the session until it times out");
            Awaits.until("the killed child's ephemeral to vanish", SESSION.plusSeconds(3),
                    () -> FaultsTest.exists(observer, "/killed") == null);
            System.out.printf("F13 (session %d ms): ephemeral gone %d ms after kill -9%n", SESSION.toMillis(),
                    (System.nanoTime() - killedAt) / 1_000_000);
        }
    }
}

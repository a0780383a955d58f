package io.coord.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** How answers to {@code srvr} become a server's mode and version, or an explanation. */
class ServerProbeTest {
    @Test
    void aNormalAnswerGivesModeAndVersionWithoutTheBuildHash() {
        ServerReport r = ServerProbe.parse("h:1", String.join("\n",
                "Zookeeper version: 3.9.5-293c895a8d966a3ecb92872be4a1daf87d725da2, built on 2025-01-01 00:00 UTC",
                "Latency min/avg/max: 0/0.0/0", "Mode: follower", "Node count: 5", ""));
        assertEquals("follower", r.mode());
        assertEquals("3.9.5", r.version());
        assertNull(r.note());
        assertTrue(r.reachable());
    }

    @Test
    void aServerThatDoesNotAllowSrvrIsReachableWithModeUnknownAndSaysSo() {
        ServerReport r = ServerProbe.parse("h:1", "srvr is not executed because it is not in the whitelist.\n");
        assertTrue(r.reachable());
        assertNull(r.mode());
        assertTrue(r.note().contains("does not allow srvr"), r.note());
    }

    @Test
    void aServerWithoutQuorumSaysItIsNotServing() {
        ServerReport r = ServerProbe.parse("h:1", "This ZooKeeper instance is not currently serving requests\n");
        assertNull(r.mode());
        assertTrue(r.note().contains("not serving"), r.note());
    }

    @Test
    void aServerThatClosesWithoutAnsweringIsExplained() {
        ServerReport r = ServerProbe.parse("h:1", "");
        assertTrue(r.reachable());
        assertTrue(r.note().contains("without answering srvr"), r.note());
    }

    @Test
    void hostsAreTheConnectStringEntriesWithoutTheChroot() {
        assertEquals(List.of("a:1", "b:2"), ServerProbe.hosts("a:1, b:2/app/x"));
    }
}

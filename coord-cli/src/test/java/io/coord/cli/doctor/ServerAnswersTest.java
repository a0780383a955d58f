package io.coord.cli.doctor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * How the doctor reads the servers' four-letter-word answers, on the exact texts ZooKeeper 3.9
 * sends: a refused word (not whitelisted) is said so, never read as zero; {@code cons},
 * {@code mntr} and {@code wchp} are parsed into sessions, values and watchers per path.
 */
class ServerAnswersTest {
    @Test
    void aWordNotInTheWhitelistIsRefusedNotEmpty() {
        FourLetterWords.Answer a = FourLetterWords.judge("wchp", "wchp is not executed because it is not in the whitelist.\n");
        assertFalse(a.ok());
        assertTrue(a.refused());
        assertEquals("wchp is not in this server's 4lw.commands.whitelist", a.error());
        assertFalse(FourLetterWords.judge("mntr", "This ZooKeeper instance is not currently serving requests\n").ok());
    }

    @Test
    void consGivesTheConnectedSessions() {
        String cons = " /127.0.0.1:51234[1](queued=0,recved=5,sent=5,sid=0x100027044130002,lop=PING,est=1764740000000,to=30000)\n"
                + " /127.0.0.1:51240[0](queued=0,recved=1,sent=0)\n";
        assertEquals(Set.of(0x100027044130002L), LiveSessions.parse(cons));
    }

    @Test
    void mntrAndWchpAreReadLineByLine() {
        Map<String, String> m = ServerCheck.mntr("zk_version\t3.9.5-293c, built on 2025\nzk_server_state\tleader\nzk_outstanding_requests\t42\n");
        assertEquals("leader", m.get("zk_server_state"));
        assertEquals("42", m.get("zk_outstanding_requests"));
        Map<String, Integer> w = ServerCheck.watchers("/ns/locks/a\n\t0x1000001\n\t0x1000002\n/ns/groups/g\n\t0x1000003\n");
        assertEquals(Map.of("/ns/locks/a", 2, "/ns/groups/g", 1), w);
    }

    @Test
    void hostsDropTheChroot() {
        assertEquals(java.util.List.of("a:1", "b:2"), FourLetterWords.hosts("a:1, b:2/app"));
    }
}

package io.coord.chaos;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordClient;
import io.coord.SessionState;
import io.coord.test.Awaits;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Fault F2 as the chaos controller applies it to another process: from nothing but the session id
 * and password the worker reported.
 */
class SessionKillerIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    @Test
    void joiningAReportedSessionAndClosingItExpiresItOnTheServerAndAGoneSessionIsNotCounted() throws Exception {
        CoordClient client = SERVER.newClient();
        ZooKeeper zk = client.curator().getZookeeperClient().getZooKeeper();
        WorkerLink.SessionInfo reported = new WorkerLink.SessionInfo(zk.getSessionId(), zk.getSessionPasswd());
        var session = client.session();

        assertTrue(SessionKiller.expire(SERVER.connectString(), reported, Duration.ofSeconds(4), Duration.ofSeconds(10)),
                "the session was joined and closed");
        Awaits.until("the client's session to end", Duration.ofSeconds(20), () -> session.state() == SessionState.EXPIRED);
        Awaits.until("a new session", Duration.ofSeconds(20),
                () -> client.session().id() != reported.id() && client.session().state() == SessionState.CONNECTED);

        assertFalse(SessionKiller.expire(SERVER.connectString(), reported, Duration.ofSeconds(4), Duration.ofSeconds(10)),
                "an already expired session cannot be expired again: the fault would not count");
    }
}

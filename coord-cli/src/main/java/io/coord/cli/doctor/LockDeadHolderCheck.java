package io.coord.cli.doctor;

import io.coord.cli.doctor.Finding.Severity;
import io.coord.lock.LockInfo;
import java.util.List;

/**
 * Waiters queued behind a holder whose client is gone: the holder's session has no connection on
 * any server ({@code cons} of every server), so its node stays until the server expires the session
 * (up to the session timeout) and everyone behind it waits. Needs {@code cons} from every server;
 * otherwise one INFO says it could not check.
 */
final class LockDeadHolderCheck implements Check {
    @Override
    public String name() {
        return "lock.dead-holder";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        List<LockInfo> queued = scan.locks().stream().filter(l -> !l.waiters().isEmpty() && !l.holders().isEmpty()).toList();
        if (queued.isEmpty()) {
            return;
        }
        LiveSessions live = scan.live();
        if (!live.known()) {
            findings.add(new Finding(Severity.INFO, name(), queued.get(0).path().value(), "could not check whether the holders of "
                    + queued.size() + " lock(s) with waiters are connected: " + live.unknownBecause(),
                    "add cons to 4lw.commands.whitelist on every server to have it checked"));
            return;
        }
        for (LockInfo lock : queued) {
            for (LockInfo.Entry h : lock.holders()) {
                if (!live.connected(h.sessionId())) {
                    findings.add(new Finding(Severity.ERROR, name(), lock.path().value(), lock.waiters().size()
                            + " waiter(s) queued behind " + h.node().name() + " (session " + h.sessionIdHex() + ", "
                            + LockParentCheck.who(h) + "), and no server has a connection for that session",
                            "its client is gone: the waiters move on when the server expires the session (its timeout);"
                                    + " if that process is alive but cut off, restore its network or stop it"));
                }
            }
        }
    }
}

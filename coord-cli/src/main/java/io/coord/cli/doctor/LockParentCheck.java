package io.coord.cli.doctor;

import io.coord.cli.doctor.Finding.Severity;
import io.coord.lock.LockInfo;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.apache.zookeeper.data.Stat;

/**
 * Lock parents re-created under their holders. A cleanup script that deletes a lock's node (with
 * its children) lets the next acquirer re-create it: the sequence restarts, and a holder from before
 * may still think it holds. Seen as a holder whose own record says it holds since before its parent
 * was created (beyond the clock-skew allowance): an ERROR. With {@link DoctorOptions#recentParent()}
 * set, any parent younger than that is a WARNING (the daily diff of parents' ctime).
 */
final class LockParentCheck implements Check {
    @Override
    public String name() {
        return "lock.parent-recreated";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        for (LockInfo lock : scan.locks()) {
            Stat stat = scan.stat(lock.path()).orElse(null);
            if (stat == null) {
                continue; // released and reaped since the listing
            }
            Instant created = Instant.ofEpochMilli(stat.getCtime());
            List<LockInfo.Entry> entries = new ArrayList<>(lock.holders());
            entries.addAll(lock.waiters());
            LockInfo.Entry older = entries.stream()
                    .filter(e -> e.heldSince() != null && e.heldSince().isBefore(created.minus(scan.options.clockSkew())))
                    .min(java.util.Comparator.comparing(LockInfo.Entry::heldSince)).orElse(null);
            if (older != null) {
                findings.add(new Finding(Severity.ERROR, name(), lock.path().value(), "parent created " + created
                        + ", but " + older.node().name() + " (session " + older.sessionIdHex() + ", " + who(older)
                        + ") records holding since " + older.heldSince() + ": the parent was deleted and re-created under it",
                        "find what deletes lock nodes (a cleanup script?) and stop it; until " + who(older)
                                + " releases, it and the current holder may both act: fence writes with the lock token"));
            } else if (!scan.options.recentParent().isZero() && scan.age(created).compareTo(scan.options.recentParent()) < 0) {
                findings.add(new Finding(Severity.WARNING, name(), lock.path().value(), "parent created " + created + " ("
                        + Scan.human(scan.age(created)) + " ago, newer than " + Scan.human(scan.options.recentParent()) + ")",
                        "if this lock existed before, something deleted and re-created it and its sequence restarted:"
                                + " find the cleanup and stop it"));
            }
        }
    }

    static String who(LockInfo.Entry e) {
        return e.owner() == null ? "a holder without Coord holder info" : e.owner() + " pid " + e.pid() + " on " + e.host();
    }
}

package io.coord.cli.doctor;

import io.coord.cli.doctor.Finding.Severity;
import io.coord.lock.LockInfo;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * One exclusive lock (a mutex, or the write side of a read-write lock) that nodes of two sessions
 * both record holding: each holder stamps {@code heldSince} into its node once granted, and a node
 * that is not first in line has no business carrying one. The lock nodes are aggregated by session;
 * two stamped sessions mean two processes each believe they hold it.
 */
final class LockTwoHoldersCheck implements Check {
    @Override
    public String name() {
        return "lock.two-holders";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        for (LockInfo lock : scan.locks()) {
            List<LockInfo.Entry> entries = new ArrayList<>(lock.holders());
            entries.addAll(lock.waiters());
            Map<Long, LockInfo.Entry> stamped = new LinkedHashMap<>();
            for (LockInfo.Entry e : entries) {
                boolean exclusive = e.type().equals("lock") || e.type().equals("write");
                if (exclusive && e.heldSince() != null && e.node().parent().equals(lock.path())) {
                    stamped.putIfAbsent(e.sessionId(), e);
                }
            }
            if (stamped.size() >= 2) {
                findings.add(new Finding(Severity.ERROR, name(), lock.path().value(), stamped.size() + " sessions record holding it: "
                        + stamped.values().stream().map(e -> e.node().name() + " (session " + e.sessionIdHex() + ", "
                                + LockParentCheck.who(e) + ", since " + e.heldSince() + ")").collect(Collectors.joining("; ")),
                        "only the first in line holds; stop the others' work (their writes must be fenced by the lock token)"
                                + " and find how they came to hold (a re-created parent, a hand-written node)"));
            }
        }
    }
}

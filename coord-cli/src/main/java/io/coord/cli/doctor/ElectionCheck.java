package io.coord.cli.doctor;

import io.coord.CoordPath;
import io.coord.ForeignNodesException;
import io.coord.cli.doctor.Finding.Severity;
import io.coord.election.CuratorLayout;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.LeaderInfo;
import io.coord.election.Participant;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Every election under {@code /elections}, read as an observer ({@link Election#leader()},
 * {@link Election#candidates()}; it creates nothing):
 * <ul>
 *   <li>{@code election.leaderless} (WARNING): no candidates at all, or a Coord leader that has not
 *       started acting though it joined more than {@link DoctorOptions#leaderless()} ago and still
 *       has not a second later (a handover in progress acts within milliseconds);</li>
 *   <li>{@code election.two-leaders} (ERROR): the leader's participant id is on candidate nodes of
 *       two sessions, so whoever addresses the leader by id may reach either.</li>
 * </ul>
 * Curator leaders never announce acting and are not reported as leaderless.
 */
final class ElectionCheck implements Check {
    static final CoordPath ROOT = Election.ROOT;
    private static final long RECHECK_MILLIS = 1000;

    @Override
    public String name() {
        return "election";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        for (String name : scan.children(ROOT)) {
            String path = ROOT.child(name).value();
            try (Election election = open(scan, name, CuratorLayout.LATCH)) {
                List<Participant> candidates = candidates(election);
                if (candidates == null) {
                    try (Election selector = open(scan, name, CuratorLayout.SELECTOR)) {
                        check(scan, selector, path, candidates(selector), findings);
                    }
                } else {
                    check(scan, election, path, candidates, findings);
                }
            }
        }
    }

    private static Election open(Scan scan, String name, CuratorLayout layout) {
        return Election.open(scan.client, name, ElectionOptions.builder().curatorLayout(layout).build());
    }

    /** The candidates, or null if the nodes are of the other layout. */
    private static List<Participant> candidates(Election election) throws InterruptedException {
        try {
            return election.candidates();
        } catch (ForeignNodesException e) {
            return null;
        }
    }

    private void check(Scan scan, Election election, String path, List<Participant> candidates, List<Finding> findings)
            throws InterruptedException {
        if (candidates == null) {
            throw new IllegalStateException("election " + path + " holds nodes of neither Curator layout (coord leader show names them)");
        }
        if (candidates.isEmpty()) {
            findings.add(new Finding(Severity.WARNING, "election.leaderless", path, "no candidates: nobody leads",
                    "start the service that campaigns here, or delete the election if it is retired"));
            return;
        }
        Optional<LeaderInfo> leader = election.leader();
        if (leader.isEmpty()) {
            return; // the last candidate left between the two reads
        }
        LeaderInfo l = leader.get();
        twoLeaders(scan, l, candidates, path, findings);
        if (l.curator() || l.acting() || scan.age(l.since()).compareTo(scan.options.leaderless()) <= 0) {
            return;
        }
        Thread.sleep(RECHECK_MILLIS);
        Optional<LeaderInfo> again = election.leader();
        if (again.isPresent() && !again.get().acting() && again.get().participant().node().equals(l.participant().node())) {
            findings.add(new Finding(Severity.WARNING, "election.leaderless", path, "leader " + l.id() + " (node "
                    + l.participant().node().name() + ", joined " + l.since() + ") is elected but not acting",
                    "no acting leader: the leader is still in its handover grace, or its process hangs before starting"
                            + " to lead; look at " + l.id() + "'s log, restart it if it hangs"));
        }
    }

    private static void twoLeaders(Scan scan, LeaderInfo l, List<Participant> candidates, String path, List<Finding> findings)
            throws InterruptedException {
        Set<String> sessions = new LinkedHashSet<>();
        for (Participant p : candidates) {
            if (p.id().equals(l.id())) {
                scan.stat(p.node()).ifPresent(s -> sessions.add(Scan.hex(s.getEphemeralOwner())));
            }
        }
        if (sessions.size() >= 2) {
            findings.add(new Finding(Severity.ERROR, "election.two-leaders", path, "the leader's id " + l.id()
                    + " is on candidate nodes of " + sessions.size() + " sessions: " + String.join(", ", sessions),
                    "two processes run with the same participant id: give each its own (ElectionOptions.participantId),"
                            + " and fence downstream writes with the epoch, which only the real leader holds"));
        }
    }
}

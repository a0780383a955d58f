package io.coord.spring.boot;

import io.coord.CoordClient;
import io.coord.LeaseState;
import io.coord.election.Election;
import io.coord.election.ElectionOptions;
import io.coord.election.LeaderRegistration;
import io.coord.election.Leadership;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link LeaderOnly @LeaderOnly}: one candidacy per election name for the whole application. It
 * uses the election's {@code LeaderLatch} shape, which keeps the candidate in the election after
 * every leadership (lost, or UNCERTAIN and not restored) until it is closed, and exposes the
 * current leadership. A run reads it and never waits: not leading means skipped.
 */
final class LeaderJobGuard implements JobGuard {
    private static final Logger LOG = LoggerFactory.getLogger(LeaderJobGuard.class);

    private record Candidate(Election election, LeaderRegistration registration) {
    }

    private final CoordClient client;
    private final Map<String, Candidate> candidates = new HashMap<>(); // guarded by this
    private boolean running; // guarded by this

    LeaderJobGuard(CoordClient client) {
        this.client = client;
    }

    @Override
    public JobSpec.Mode mode() {
        return JobSpec.Mode.LEADER;
    }

    @Override
    public synchronized void start(Set<String> names) {
        running = true;
        names.forEach(this::candidate);
    }

    @Override
    public Admission enter(JobSpec spec) {
        Candidate c = candidate(spec.name());
        if (c == null) {
            return new Refused("the application is stopping");
        }
        // Set before the election tells anyone of a leadership; cleared as soon as it wavers.
        Optional<Leadership> leadership = c.registration().leadership();
        if (leadership.isEmpty() || leadership.get().state() != LeaseState.ACQUIRED) {
            return new Refused("this instance does not lead election '" + spec.name() + "'");
        }
        return new Admitted(leadership.get(), false);
    }

    /** The candidacy for {@code name}, joining the election on first use (a bean created after startup); null once stopped. */
    private synchronized Candidate candidate(String name) {
        if (!running) {
            return null;
        }
        return candidates.computeIfAbsent(name, n -> {
            Election election = Election.open(client, n, ElectionOptions.defaults());
            LeaderRegistration registration = election.lead(new LeaderLatchListener() {
                @Override
                public void isLeader() {
                    LOG.info("leading election '{}': its @LeaderOnly jobs run on this instance", n);
                }

                @Override
                public void notLeader() {
                    LOG.info("no longer leading election '{}': its @LeaderOnly jobs are skipped here", n);
                }
            }, Runnable::run); // logging only: returns at once
            return new Candidate(election, registration);
        });
    }

    @Override
    public void stop() {
        Map<String, Candidate> left;
        synchronized (this) {
            running = false;
            left = new HashMap<>(candidates);
            candidates.clear();
        }
        left.values().forEach(c -> {
            c.registration().close(); // resigns: the next instance takes over at once
            c.election().close();
        });
    }
}

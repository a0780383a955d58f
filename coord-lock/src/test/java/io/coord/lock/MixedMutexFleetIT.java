package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16, mutex: a rolling deploy from InterProcessMutex to {@link Locks#mutex} (native and
 * through its Curator view) on one path, each client its own session, never has two holders —
 * both libraries name their nodes {@code _c_<uuid>-lock-<sequence>} and grant the first in
 * sequence order.
 */
class MixedMutexFleetIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    static final CoordPath LOCK = Locks.path("orders", "mixed");
    static final int ACQUISITIONS = 300;
    static final Duration BUDGET = Duration.ofSeconds(90);

    /** 3 Curator InterProcessMutex clients, 2 Coord native and 2 Coord Curator-view clients; returns the Coord clients. */
    static List<CoordClient> mutexFleet(MixedFleet fleet) throws InterruptedException {
        for (int i = 1; i <= 3; i++) {
            curatorMutex(fleet, "curator-" + i, new InterProcessMutex(fleet.curator(), LOCK.value()));
        }
        CoordClient a = SERVER.newClient();
        CoordClient b = SERVER.newClient();
        CoordClient c = SERVER.newClient();
        CoordClient d = SERVER.newClient();
        coordNative(fleet, "coord-1", Locks.mutex(a, LOCK));
        coordNative(fleet, "coord-2", Locks.mutex(b, LOCK));
        coordView(fleet, "coord-view-1", Locks.mutex(c, LOCK));
        coordView(fleet, "coord-view-2", Locks.mutex(d, LOCK));
        return List.of(a, b, c, d);
    }

    /** A Curator-typed exclusive lock (a mutex or a write lock) as a contender. */
    static void curatorMutex(MixedFleet fleet, String name, InterProcessLock lock) {
        fleet.add(name, s -> {
            if (!lock.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            try {
                s.visit(name, true, 0, -1);
            } finally {
                lock.release();
            }
            return true;
        });
    }

    /** Coord's native API (a mutex or a write lock) as a contender; its token is recorded in grant order. */
    static void coordNative(MixedFleet fleet, String name, DistributedLock lock) {
        fleet.add(name, s -> {
            Optional<LockLease> held = lock.tryAcquire(MixedFleet.ACQUIRE);
            if (held.isEmpty()) {
                return false;
            }
            try (LockLease lease = held.get()) {
                s.visit(name, true, lease.session().id(), lease.token().value());
            }
            return true;
        });
    }

    /** Coord's Curator-shaped view (a mutex or a write lock) as a contender. */
    static void coordView(MixedFleet fleet, String name, DistributedLock lock) {
        coordView(fleet, name, lock.asInterProcessLock());
    }

    /** A Curator-shaped Coord view (a mutex's, or a read-write view's write half) as a contender; its token is recorded too. */
    static void coordView(MixedFleet fleet, String name, CuratorLock view) {
        fleet.add(name, s -> {
            if (!view.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS)) {
                return false;
            }
            try {
                LockLease lease = view.heldByCurrentThread().orElseThrow();
                s.visit(name, true, lease.session().id(), lease.token().value());
            } finally {
                view.release();
            }
            return true;
        });
    }

    @Test
    void curatorAndCoordMutexesOnOnePathNeverOverlap() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            mutexFleet(fleet);
            fleet.runClean(ACQUISITIONS, BUDGET);
        }
    }

    @Test
    @Tag("fault")
    void aCoordSessionExpiringMidRunLeavesTheSurvivorsExclusiveAndTokensRising() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            CoordClient victim = mutexFleet(fleet).get(0);
            fleet.runExpiringHalfWay(victim, "coord-1", ACQUISITIONS, BUDGET);
        }
    }
}

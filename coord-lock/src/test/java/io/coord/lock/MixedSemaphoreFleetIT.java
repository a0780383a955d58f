package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16, semaphore: a rolling deploy from InterProcessSemaphoreV2 to {@link Locks#semaphore}
 * (native and through its Curator view) on one path, each client its own session, never has more
 * holders inside than the permits — both libraries admit through the {@code locks/} mutex and count
 * the same {@code leases/} children.
 */
class MixedSemaphoreFleetIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    static final int ACQUISITIONS = 300;
    static final Duration BUDGET = Duration.ofSeconds(90);

    /** 3 Curator V2 clients, 2 Coord native and 1 Coord view client on {@code path}; returns the Coord clients. */
    static List<CoordClient> semaphoreFleet(MixedFleet fleet, CoordPath path, int permits) throws InterruptedException {
        for (int i = 1; i <= 3; i++) {
            curator(fleet, "curator-" + i, new InterProcessSemaphoreV2(fleet.curator(), path.value(), permits), permits);
        }
        CoordClient a = SERVER.newClient();
        CoordClient b = SERVER.newClient();
        CoordClient c = SERVER.newClient();
        coordNative(fleet, "coord-1", Locks.semaphore(a, path, permits));
        coordNative(fleet, "coord-2", Locks.semaphore(b, path, permits));
        coordView(fleet, "coord-view-1", Locks.semaphore(c, path, permits));
        return List.of(a, b, c);
    }

    static void curator(MixedFleet fleet, String name, InterProcessSemaphoreV2 semaphore, int permits) {
        fleet.add(name, s -> {
            Lease lease = semaphore.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS);
            if (lease == null) {
                return false;
            }
            try {
                s.visit(name, permits, 0, -1);
            } finally {
                semaphore.returnLease(lease);
            }
            return true;
        });
    }

    static void coordNative(MixedFleet fleet, String name, Semaphore semaphore) {
        fleet.add(name, s -> {
            Optional<LockLease> held = semaphore.tryAcquire(MixedFleet.ACQUIRE);
            if (held.isEmpty()) {
                return false;
            }
            try (LockLease lease = held.get()) {
                s.visit(name, semaphore.permits(), lease.session().id(), lease.token().value());
            }
            return true;
        });
    }

    static void coordView(MixedFleet fleet, String name, Semaphore semaphore) {
        CuratorSemaphore view = semaphore.asCuratorSemaphore();
        fleet.add(name, s -> {
            CuratorSemaphore.CoordLease lease = view.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS);
            if (lease == null) {
                return false;
            }
            try {
                s.visit(name, semaphore.permits(), lease.lockLease().session().id(), lease.lockLease().token().value());
            } finally {
                view.returnLease(lease);
            }
            return true;
        });
    }

    @Test
    void withOnePermitCuratorAndCoordNeverHoldTogether() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            semaphoreFleet(fleet, Locks.path("exports", "one"), 1);
            fleet.runClean(ACQUISITIONS, BUDGET);
        }
    }

    @Test
    void withThreePermitsCuratorAndCoordNeverHoldMoreThanThree() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            semaphoreFleet(fleet, Locks.path("exports", "three"), 3);
            fleet.runCounted(ACQUISITIONS, BUDGET);
        }
    }

    @Test
    @Tag("fault")
    void aCoordSessionExpiringMidRunLeavesTheSurvivorsWithinThePermitAndTokensRising() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            CoordClient victim = semaphoreFleet(fleet, Locks.path("exports", "expiring"), 1).get(0);
            fleet.runExpiringHalfWay(victim, "coord-1", ACQUISITIONS, BUDGET);
        }
    }
}

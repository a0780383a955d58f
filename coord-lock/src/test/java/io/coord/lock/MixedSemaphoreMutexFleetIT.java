package io.coord.lock;

import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.test.ZooKeeperExtension;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreMutex;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Issue 16, {@code InterProcessSemaphoreMutex}: Curator's non-reentrant mutex is an
 * {@code InterProcessSemaphoreV2} with one lease, so {@link Locks#semaphore Locks.semaphore(client,
 * path, 1)} (native and through its Curator view) shares its path: a mixed fleet, each client on
 * its own session, never has two holders inside, also when a Coord session expires mid-run.
 */
class MixedSemaphoreMutexFleetIT {
    @RegisterExtension
    static final ZooKeeperExtension SERVER = ZooKeeperExtension.single();

    static final Duration BUDGET = Duration.ofSeconds(90);

    /** 3 Curator {@code InterProcessSemaphoreMutex} clients, 2 Coord native and 1 Coord view client on {@code path}; returns the Coord clients. */
    private static List<CoordClient> fleet(MixedFleet fleet, CoordPath path) throws InterruptedException {
        for (int i = 1; i <= 3; i++) {
            String name = "curator-" + i;
            InterProcessSemaphoreMutex mutex = new InterProcessSemaphoreMutex(fleet.curator(), path.value());
            fleet.add(name, s -> {
                if (!mutex.acquire(MixedFleet.ACQUIRE.toMillis(), TimeUnit.MILLISECONDS)) {
                    return false;
                }
                try {
                    s.visit(name, 1, 0, -1);
                } finally {
                    mutex.release();
                }
                return true;
            });
        }
        CoordClient a = SERVER.newClient();
        CoordClient b = SERVER.newClient();
        CoordClient c = SERVER.newClient();
        MixedSemaphoreFleetIT.coordNative(fleet, "coord-1", Locks.semaphore(a, path, 1));
        MixedSemaphoreFleetIT.coordNative(fleet, "coord-2", Locks.semaphore(b, path, 1));
        MixedSemaphoreFleetIT.coordView(fleet, "coord-view-1", Locks.semaphore(c, path, 1));
        return List.of(a, b, c);
    }

    @Test
    void curatorSemaphoreMutexAndCoordOnePermitSemaphoreNeverHoldTogether() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            fleet(fleet, Locks.path("reports", "nightly"));
            fleet.runClean(MixedSemaphoreFleetIT.ACQUISITIONS, BUDGET);
        }
    }

    @Test
    @Tag("fault")
    void aCoordSessionExpiringMidRunLeavesTheSurvivorsExclusive() throws Exception {
        try (MixedFleet fleet = new MixedFleet(SERVER)) {
            CoordClient victim = fleet(fleet, Locks.path("reports", "expiring")).get(0);
            fleet.runExpiringHalfWay(victim, "coord-1", MixedSemaphoreFleetIT.ACQUISITIONS, BUDGET);
        }
    }
}

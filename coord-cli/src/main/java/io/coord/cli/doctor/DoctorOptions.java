package io.coord.cli.doctor;

import java.time.Duration;
import java.util.Objects;

/**
 * The thresholds {@link Doctor} judges by. A duration of zero turns its check off where the
 * description says so; {@link #defaults()} are what {@code coord doctor} uses without options.
 *
 * @param recentParent     a lock parent created less than this long ago is reported (a cleanup may
 *                         have deleted and re-created it, restarting its sequence); zero: off, since
 *                         a new lock is young too (pass the time since the last daily run)
 * @param clockSkew        how far a holder's clock may be behind the server's before its
 *                         {@code heldSince} counts as older than its parent
 * @param claimAge         a queue claim older than this is reported
 * @param queueDepthCap    the depth cap the queues' clients use ({@code QueueOptions.depthCap}; it
 *                         lives in the clients, not on the server)
 * @param queueDepthWarn   the fraction of the cap at which depth is a warning (an error at the cap)
 * @param leaderless       an election whose leader was elected this long ago and has not started
 *                         acting, or with no candidates, is reported
 * @param barrierWait      a barrier generation waiting (to enter or to leave) longer than this is reported
 * @param recentJoin       a member whose current node is younger than this is reported (INFO): the
 *                         only trace of a flap a single read can see
 * @param flapWatch        how long to watch every group for flaps (leave and rejoin); zero: no watch
 * @param maxOutstanding   {@code zk_outstanding_requests} above this is a warning
 * @param maxWatchers      a path watched by more sessions than this is a warning (a herd)
 * @param probeTimeout     the bound on each four-letter-word exchange with a server
 */
public record DoctorOptions(Duration recentParent, Duration clockSkew, Duration claimAge, int queueDepthCap,
                            double queueDepthWarn, Duration leaderless, Duration barrierWait, Duration recentJoin,
                            Duration flapWatch, long maxOutstanding, int maxWatchers, Duration probeTimeout) {
    public DoctorOptions {
        nonNegative("recentParent", recentParent);
        nonNegative("clockSkew", clockSkew);
        nonNegative("claimAge", claimAge);
        nonNegative("leaderless", leaderless);
        nonNegative("barrierWait", barrierWait);
        nonNegative("recentJoin", recentJoin);
        nonNegative("flapWatch", flapWatch);
        nonNegative("probeTimeout", probeTimeout);
        if (queueDepthCap < 1) {
            throw new IllegalArgumentException("queueDepthCap must be >= 1, got " + queueDepthCap);
        }
        if (!(queueDepthWarn > 0 && queueDepthWarn <= 1)) {
            throw new IllegalArgumentException("queueDepthWarn must be in (0, 1], got " + queueDepthWarn);
        }
        if (maxOutstanding < 0) {
            throw new IllegalArgumentException("maxOutstanding must be >= 0, got " + maxOutstanding);
        }
        if (maxWatchers < 0) {
            throw new IllegalArgumentException("maxWatchers must be >= 0, got " + maxWatchers);
        }
    }

    /** Parent age off, 5 s skew, 10 min claims, the queues' default cap at 80 %, 30 s leaderless, 10 min barrier wait, 1 min join, no flap watch, 10 outstanding, 100 watchers, 2 s probes. */
    public static DoctorOptions defaults() {
        return new DoctorOptions(Duration.ZERO, Duration.ofSeconds(5), Duration.ofMinutes(10),
                io.coord.queue.QueueOptions.defaults().depthCap(), 0.8, Duration.ofSeconds(30), Duration.ofMinutes(10),
                Duration.ofMinutes(1), Duration.ZERO, 10, 100, Duration.ofSeconds(2));
    }

    private static void nonNegative(String name, Duration d) {
        Objects.requireNonNull(d, name);
        if (d.isNegative()) {
            throw new IllegalArgumentException(name + " must be >= 0, got " + d);
        }
    }
}

package io.coord.cli.demo;

import java.nio.file.Path;
import java.util.Arrays;

/**
 * How one demo run goes.
 *
 * @param workers  worker processes (3..16: the run kills two of them and needs a third to take
 *                 the lock from a paused one)
 * @param connect  an ensemble to use, or null to start an embedded 3-node one on loopback
 * @param seed     seeds the task amounts and which workers the faults hit
 * @param fenced   whether the ledger's fence is on; off only for the control run that shows the
 *                 run's own checks can fail
 * @param waves    tasks per wave, three waves: the first before the faults, the second released
 *                 for the pause, the third for the kills (see {@code DemoScript})
 * @param applyMs  how long a worker works on one task while it holds the ledger lock
 * @param logs     a directory to copy each worker's log (its stderr) into at the end, or null
 * @param uiPort   the port of the web console served while the run goes ({@code --ui}; 0: any
 *                 free one), or {@link #NO_UI}
 */
record DemoOptions(int workers, String connect, long seed, boolean fenced, int[] waves, int applyMs, Path logs, int uiPort) {
    static final int NO_UI = -1;
    static final int MIN_WORKERS = 3;
    static final int MAX_WORKERS = 16;

    DemoOptions {
        if (workers < MIN_WORKERS || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("--workers must be within " + MIN_WORKERS + ".." + MAX_WORKERS + ", got " + workers
                    + " (the run kills two workers and needs a third to take the lock from a paused one)");
        }
        if (connect != null && connect.isBlank()) {
            throw new IllegalArgumentException("--connect must be host:port[,host:port...], got an empty string");
        }
        if (waves.length != 3 || Arrays.stream(waves).anyMatch(n -> n < 1 || n > 1000) || waves[0] < 3 || waves[2] < 2) {
            throw new IllegalArgumentException("the job must have 3 waves of 1..1000 tasks, at least 3 in the first (the config"
                    + " change comes after 3 are done) and 2 in the last (the two killed workers claim one each), got "
                    + Arrays.toString(waves));
        }
        if (uiPort != NO_UI && (uiPort < 0 || uiPort > 65_535)) {
            throw new IllegalArgumentException("--ui-port must be within 0..65535, got " + uiPort);
        }
        if (applyMs < 0) {
            throw new IllegalArgumentException("applyMs must be >= 0, got " + applyMs);
        }
        waves = waves.clone();
    }

    /** The defaults of {@code coord demo}: 4 workers, an embedded ensemble, fencing on. */
    static DemoOptions defaults(long seed) {
        return new DemoOptions(4, null, seed, true, new int[] {24, 12, 12}, 120, null, NO_UI);
    }

    DemoOptions withWorkers(int n) {
        return new DemoOptions(n, connect, seed, fenced, waves, applyMs, logs, uiPort);
    }

    DemoOptions withConnect(String connectString) {
        return new DemoOptions(workers, connectString, seed, fenced, waves, applyMs, logs, uiPort);
    }

    DemoOptions withFenced(boolean on) {
        return new DemoOptions(workers, connect, seed, on, waves, applyMs, logs, uiPort);
    }

    DemoOptions withLogs(Path dir) {
        return new DemoOptions(workers, connect, seed, fenced, waves, applyMs, dir, uiPort);
    }

    DemoOptions withUi(int port) {
        return new DemoOptions(workers, connect, seed, fenced, waves, applyMs, logs, port);
    }

    int totalTasks() {
        return Arrays.stream(waves).sum();
    }

    @Override
    public int[] waves() {
        return waves.clone();
    }
}

package io.coord.cli.demo;

import io.coord.CoordClient;
import io.coord.cli.demo.ClaimGate.Fault;
import io.coord.cli.demo.DemoResult.Leader;
import io.coord.cli.demo.RunState.Worker;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.membership.Group;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * The demo's script, played by the controller once every worker is up: the start barrier; the
 * first wave; {@code batch.size} changed and applied everywhere; a worker paused (SIGSTOP) while
 * it holds the ledger lock, until another worker has written with a newer token, then resumed:
 * its write must be refused by the fence; a worker and the coordinator, each holding a task
 * claim, killed (kill -9): a new coordinator with a higher epoch, and the claimed tasks done by
 * someone else; the rest of the job; the survivors out through the finish barrier.
 *
 * <p>The faults do not race the work: the coordinator fills wave 2 and wave 3 only when the
 * script releases them ({@link DemoLayout#RELEASED}), and before each fault the script's
 * {@link ClaimGate} lets only the fault's targets claim until they are at the fault's point. So
 * with 16 workers that drain wave 1 at once, or 3 on a loaded machine, each fault's moment comes.
 *
 * <p>Every step waits for what it expects with a bound; a step that does not happen in time
 * throws {@link DemoFailure}, which fails the run. Which workers are paused and killed is drawn
 * from the run's seed.
 */
final class DemoScript {
    /**
     * How long a fault's target may take to reach the fault's point once the wave is released: it
     * first finishes the batch it holds, and then waits its turn at the lock behind the batches
     * the others hold (at 16 workers, up to 45 tasks).
     */
    private static final Duration FAULT_POINT = Duration.ofSeconds(60);

    private final DemoOptions options;
    private final RunState state;
    private final Ledger ledger;
    private final Narrator say;
    private final CoordClient client;
    private final Group<Map<String, Object>> group;
    private final long sessionTimeoutMs;
    private final Random choices;

    DemoScript(DemoOptions options, RunState state, Ledger ledger, Narrator say, CoordClient client,
               Group<Map<String, Object>> group, long sessionTimeoutMs) {
        this.options = options;
        this.state = state;
        this.ledger = ledger;
        this.say = say;
        this.client = client;
        this.group = group;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.choices = new Random(options.seed());
    }

    void play() throws InterruptedException {
        int n = options.workers();
        state.await("all " + n + " workers through the start barrier", Duration.ofSeconds(60),
                () -> state.barrierCount(DemoLayout.START_BARRIER, "left") >= n ? Boolean.TRUE : null);
        state.await("the coordinator filling wave 1", Duration.ofSeconds(30), () -> state.filledWaves().contains(1) ? Boolean.TRUE : null);

        changeConfig();
        pauseLockHolder();
        killClaimHolderAndCoordinator();

        state.await("the coordinator filling every wave", Duration.ofSeconds(60), () -> state.allFilled() ? Boolean.TRUE : null);
        int planned = options.totalTasks();
        awaitAllDone(planned);
        say.event("all " + planned + " tasks done; ledger " + ledger.balance());

        List<Worker> survivors = state.live();
        int k = survivors.size();
        say.event("membership: the group holds " + String.join(", ", group.view().ids()) + "; the finish barrier is for "
                + (k == 1 ? "that 1 worker" : "these " + k));
        survivors.forEach(w -> w.process.command("FINISH " + k));
        state.await("the " + k + " survivors leaving through the finish barrier", Duration.ofSeconds(60),
                () -> survivors.stream().allMatch(w -> w.bye) ? Boolean.TRUE : null);
        for (Worker w : survivors) {
            int code = w.process.awaitExit(Duration.ofSeconds(20))
                    .orElseThrow(() -> new DemoFailure(w.name + " did not exit within 20 s after the finish barrier"));
            if (code != 0) {
                throw new DemoFailure(w.name + " exited with " + code);
            }
        }
        say.event(survivors.stream().map(w -> w.name).collect(Collectors.joining(", ")) + (k == 1 ? " has" : " have")
                + " left the group and exited");
    }

    /** Mid-run, the admin changes {@code batch.size}; every worker must report applying the new version. */
    private void changeConfig() throws InterruptedException {
        state.await("the first tasks done", Duration.ofSeconds(30), () -> state.completions().size() >= 3 ? Boolean.TRUE : null);
        long version = ConfigStore.open(client, ConfigOptions.defaults()).put(DemoLayout.BATCH_SIZE, 3);
        state.configPublished(version);
        say.event("admin publishes batch.size=3 (v" + version + ") with coord-config");
        state.await("every worker applying batch.size v" + version, Duration.ofSeconds(20),
                () -> state.live().stream().allMatch(w -> w.configVersions.contains(version)) ? Boolean.TRUE : null);
        say.event("all " + state.live().size() + " workers run batch.size v" + version);
    }

    /**
     * A worker that holds the ledger lock, has checked its lease and read the balance, is paused
     * for longer than its session timeout. Its session expires, the lock passes on, another worker
     * writes with a newer token; resumed, the paused worker sends its write with its old token.
     */
    private void pauseLockHolder() throws InterruptedException {
        Worker coordinator = state.await("a live coordinator", Duration.ofSeconds(20), state::coordinator);
        Worker target = pick(state.live().stream().filter(w -> w != coordinator).toList());
        gateAndRelease(Map.of(target, Fault.STALL), 2, "takes the lock with a task of its own");
        String token = state.await(target.name + " holding the ledger lock", FAULT_POINT, () -> target.stallToken);
        long stale = Long.decode(token);
        say.event(target.name + " holds the ledger lock (token " + token + "), checked its lease and read the balance:"
                + " SIGSTOP " + target.name + " (pid " + target.process.pid() + ") before it writes");
        long pausedAt = System.nanoTime();
        target.process.pause();
        state.mark(() -> target.paused = true);
        state.gate().open(); // the others claim again: one of them must take the lock next
        state.await("a newer lock holder writing to the ledger", Duration.ofMillis(sessionTimeoutMs * 3 + 15_000),
                () -> ledger.highestToken() > stale ? Boolean.TRUE : null);
        long highest = ledger.highestToken();
        say.event(target.name + "'s session expired, so its lock node went: another worker got the lock and wrote with token "
                + DemoLayout.hex(highest) + " > " + token);
        target.process.resume();
        state.mark(() -> target.paused = false);
        say.event(String.format(Locale.ROOT, "SIGCONT %s after %.1f s paused (session timeout %d ms): it sends its write with token %s",
                target.name, (System.nanoTime() - pausedAt) / 1e9, sessionTimeoutMs, token));
        target.process.command("GO");
        state.await(target.name + "'s stale write reaching the ledger", Duration.ofSeconds(20), () -> target.rejected
                || ledger.staleAccepted().stream().anyMatch(s -> s.worker().equals(target.name)) ? Boolean.TRUE : null);
        if (!target.rejected) {
            say.event(target.name + "'s stale write was ACCEPTED: fencing is off, so the ledger has just lost updates");
        }
    }

    /**
     * A worker and the coordinator, each holding a task claim, are killed (kill -9) together. They
     * are stopped at the point where they hold a claim (and no lock): a process killed between its
     * ledger write and its completion would leave a task applied but not completed, which the
     * ledger (deliberately not idempotent) would then count twice.
     */
    private void killClaimHolderAndCoordinator() throws InterruptedException {
        Worker coordinator = state.await("a live coordinator", Duration.ofSeconds(30), state::coordinator);
        List<Worker> others = state.live().stream().filter(w -> w != coordinator).toList();
        List<Worker> preferred = others.stream().filter(w -> w.stallToken == null).toList();
        Worker holder = pick(preferred.isEmpty() ? others : preferred);
        gateAndRelease(Map.of(holder, Fault.HOLD, coordinator, Fault.HOLD), 3, "each hold a claim");
        long task = state.await(holder.name + " holding a task claim", FAULT_POINT, () -> holder.holding);
        long coordinatorTask = state.await(coordinator.name + " holding a task claim", FAULT_POINT, () -> coordinator.holding);
        Leader old = state.leaders().get(state.leaders().size() - 1);
        say.event(holder.name + " holds its claim on task " + task + ": kill -9 " + holder.name + " (pid " + holder.process.pid() + ")");
        holder.process.kill9();
        state.mark(() -> holder.killed = true);
        say.event(coordinator.name + ", the coordinator (epoch " + DemoLayout.hex(old.epoch()) + "), holds its claim on task "
                + coordinatorTask + ": kill -9 " + coordinator.name + " (pid " + coordinator.process.pid() + ")");
        coordinator.process.kill9();
        state.mark(() -> coordinator.killed = true);
        state.gate().open(); // the survivors take the rest, the killed pair's tasks too once their sessions end
        state.await("a new coordinator with an epoch above " + DemoLayout.hex(old.epoch()), Duration.ofMillis(sessionTimeoutMs * 3 + 20_000),
                () -> {
                    Worker now = state.coordinator();
                    List<Leader> all = state.leaders();
                    return now != null && all.get(all.size() - 1).epoch() > old.epoch() ? Boolean.TRUE : null;
                });
        for (Worker killed : List.of(holder, coordinator)) {
            long t = killed == holder ? task : coordinatorTask;
            String by = state.await("task " + t + " done by another worker", Duration.ofSeconds(40), () -> {
                String applied = ledger.appliedBy(t);
                return applied != null && !applied.equals(killed.name) ? applied : null;
            });
            say.event("task " + t + ", claimed by the killed " + killed.name + ", came back and was done by " + by);
        }
    }

    /**
     * Lets only the {@code faults}' targets claim (one task each), waits until no other worker is
     * in the middle of a claim, then releases wave {@code wave}: fresh tasks that only the targets
     * may take, so each is sure to reach its fault's point however the earlier waves went.
     */
    private void gateAndRelease(Map<Worker, Fault> faults, int wave, String what) throws InterruptedException {
        Map<String, Fault> byName = new HashMap<>();
        faults.forEach((w, f) -> byName.put(w.name, f));
        state.gate().only(byName);
        state.await("the other workers' claims in flight", Duration.ofSeconds(20),
                () -> state.gate().quiet(state.live().stream().map(w -> w.name).toList()) ? Boolean.TRUE : null);
        try {
            client.curator().setData().forPath(DemoLayout.RELEASED.value(), Integer.toString(wave).getBytes(StandardCharsets.UTF_8));
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("could not release wave " + wave + " at " + DemoLayout.RELEASED + ": " + e.getMessage(), e);
        }
        List<String> names = faults.keySet().stream().map(w -> w.name).sorted(Comparator.comparingInt(DemoScript::number)).toList();
        say.event("admin releases wave " + wave + "; the others claim nothing new until " + String.join(" and ", names) + " "
                + what + " (so the fault comes at any size and speed)");
    }

    private static int number(String worker) {
        return Integer.parseInt(worker.replaceAll("\\D", ""));
    }

    /** Waits until every planned task has its done marker in ZooKeeper (created with its completion). */
    private void awaitAllDone(int planned) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            int done;
            try {
                done = client.curator().getChildren().forPath(DemoLayout.DONE.value()).size();
            } catch (InterruptedException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("could not list " + DemoLayout.DONE + ": " + e.getMessage(), e);
            }
            if (done >= planned) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new DemoFailure("all " + planned + " tasks done did not happen within 60 s (" + done + " done markers)");
            }
            TimeUnit.MILLISECONDS.sleep(200); // a poll of ZooKeeper, the authority on completions
        }
    }

    private Worker pick(List<Worker> candidates) {
        if (candidates.isEmpty()) {
            throw new DemoFailure("no live worker left to run the next fault on");
        }
        return candidates.get(choices.nextInt(candidates.size()));
    }
}

package io.coord.cli.demo;

import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.cli.demo.DemoResult.Leader;
import io.coord.cli.demo.Job.Payload;
import io.coord.cli.demo.Job.Planned;
import io.coord.queue.QueueOptions;
import io.coord.queue.QueueStats;
import io.coord.queue.TaskQueue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The run's own checks, made at the end from the controller's ledger, the workers' reports and
 * a fresh read of ZooKeeper (the plan, the done markers, the queue):
 * <ol>
 *   <li><b>ledger exact</b>: the balance is the sum of the planned tasks' amounts;
 *   <li><b>every task done exactly once</b>: each planned task has exactly one accepted ledger
 *       write, one completion and one done marker; nothing else was applied; the queue is empty
 *       and has no dead letters;
 *   <li><b>no stale write accepted</b>: no write was accepted with a token older than one
 *       accepted before it;
 *   <li><b>epochs increase</b>: there were at least two coordinators, each with a higher epoch;
 *   <li><b>config applied everywhere</b>: every worker that finished runs the last version;
 *   <li><b>faults took effect</b>: the paused worker's write was refused by the fence and a
 *       killed worker's claimed task was delivered again.
 * </ol>
 */
final class Verdict {
    private final DemoOptions options;
    private final RunState state;
    private final Ledger ledger;
    private final CoordClient client;
    private final long sessionTimeoutMs;
    private final double elapsedSeconds;
    private final Map<String, Boolean> invariants = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();

    Verdict(DemoOptions options, RunState state, Ledger ledger, CoordClient client, long sessionTimeoutMs, double elapsedSeconds) {
        this.options = options;
        this.state = state;
        this.ledger = ledger;
        this.client = client;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.elapsedSeconds = elapsedSeconds;
    }

    DemoResult check(List<String> stopped) {
        failures.addAll(stopped);
        List<Planned> plan = readPlan();
        long expected = plan.stream().mapToLong(Planned::amount).sum();
        Map<Long, Integer> applied = ledger.applications();
        Map<Long, Integer> completed = state.completions();

        boolean wholePlan = plan.size() == options.totalTasks();
        check("ledger exact", wholePlan && ledger.balance() == expected,
                "the ledger holds " + ledger.balance() + " but the " + plan.size() + " planned tasks add up to " + expected
                + (wholePlan ? "" : " (the plan should have " + options.totalTasks() + " tasks)"));

        List<String> problems = new ArrayList<>();
        Set<Long> planned = new HashSet<>();
        plan.forEach(t -> planned.add(t.id()));
        Set<Long> markers = doneMarkers();
        for (Planned t : plan) {
            int a = applied.getOrDefault(t.id(), 0);
            int c = completed.getOrDefault(t.id(), 0);
            if (a != 1 || c != 1 || !markers.contains(t.id())) {
                problems.add("task " + t.id() + " applied " + a + "x, completed " + c + "x" + (markers.contains(t.id()) ? "" : ", no done marker"));
            }
        }
        applied.keySet().stream().filter(id -> !planned.contains(id)).forEach(id -> problems.add("task " + id + " applied but never planned"));
        String queue = queueProblem();
        if (queue != null) {
            problems.add(queue);
        }
        if (!wholePlan) {
            problems.add("only " + plan.size() + " of " + options.totalTasks() + " tasks were planned");
        }
        check("every task done exactly once", problems.isEmpty(), problems.size() + " problem(s): "
                + problems.stream().limit(5).collect(Collectors.joining("; ")) + (problems.size() > 5 ? "; ..." : ""));

        List<Ledger.StaleAccept> stale = ledger.staleAccepted();
        check("no stale write accepted", stale.isEmpty(), stale.size() + " stale write(s) accepted: " + stale.stream()
                .map(s -> s.worker() + " wrote task " + s.task() + " with token " + DemoLayout.hex(s.token()) + " after "
                        + DemoLayout.hex(s.highest()) + " was accepted")
                .collect(Collectors.joining("; ")));

        List<Leader> leaders = state.leaders();
        boolean increasing = leaders.size() >= 2;
        for (int i = 1; i < leaders.size(); i++) {
            increasing &= leaders.get(i).epoch() > leaders.get(i - 1).epoch();
        }
        check("epochs increase", increasing, "coordinators and epochs: " + leaders(leaders) + " (need two or more, each higher)");

        long published = state.configVersion();
        List<String> behind = state.workers().stream().filter(w -> w.bye)
                .filter(w -> w.configVersions.isEmpty() || w.configVersions.get(w.configVersions.size() - 1) != published)
                .map(w -> w.name + " runs v" + (w.configVersions.isEmpty() ? "?" : w.configVersions.get(w.configVersions.size() - 1)))
                .toList();
        boolean anyFinished = state.workers().stream().anyMatch(w -> w.bye);
        check("config applied everywhere", anyFinished && behind.isEmpty(),
                anyFinished ? String.join(", ", behind) + " instead of batch.size v" + published : "no worker finished the run");

        boolean refused = !ledger.rejections().isEmpty();
        boolean redelivered = state.retries() > 0;
        List<String> missed = new ArrayList<>();
        if (!refused) {
            missed.add("the paused worker's stale write was not refused");
        }
        if (!redelivered) {
            missed.add("no claimed task was delivered again");
        }
        check("faults took effect", missed.isEmpty(), String.join("; ", missed));

        state.workerFailures().forEach(f -> failures.add("a worker failed: " + f));
        Map<String, List<Long>> versions = new LinkedHashMap<>();
        state.workers().forEach(w -> versions.put(w.name, List.copyOf(w.configVersions)));
        int done = (int) plan.stream().filter(t -> applied.getOrDefault(t.id(), 0) == 1 && markers.contains(t.id())).count();
        return new DemoResult(options.totalTasks(), done, state.retries(), ledger.rejections().size(), stale.size(), leaders,
                versions, ledger.balance(), expected, sessionTimeoutMs, Duration.ofMillis((long) (elapsedSeconds * 1000)),
                invariants, failures);
    }

    private void check(String name, boolean holds, String why) {
        invariants.put(name, holds);
        if (!holds) {
            failures.add(name + ": " + why);
        }
    }

    private List<Planned> readPlan() {
        if (client == null) {
            return List.of();
        }
        try {
            return Job.decode(client.curator().getData().forPath(DemoLayout.JOB.value())).allTasks();
        } catch (Exception e) {
            failures.add("could not read the job's plan from " + DemoLayout.JOB + ": " + e.getMessage());
            return List.of();
        }
    }

    private Set<Long> doneMarkers() {
        Set<Long> ids = new HashSet<>();
        if (client == null) {
            return ids;
        }
        try {
            client.curator().getChildren().forPath(DemoLayout.DONE.value()).forEach(n -> ids.add(Long.parseLong(n)));
        } catch (Exception e) {
            failures.add("could not list " + DemoLayout.DONE + ": " + e.getMessage());
        }
        return ids;
    }

    /** Null if the queue is empty with no dead letters, else what is left in it. */
    private String queueProblem() {
        if (client == null) {
            return "ZooKeeper was never reached";
        }
        try (TaskQueue<Payload> queue = TaskQueue.open(client, DemoLayout.QUEUE, Codec.json(Payload.class), QueueOptions.defaults())) {
            QueueStats stats = queue.stats();
            return stats.depth() == 0 && stats.dead() == 0 ? null
                    : "the queue still holds " + stats.depth() + " task(s) and " + stats.dead() + " dead letter(s)";
        } catch (RuntimeException e) {
            return "could not read the queue: " + e.getMessage();
        }
    }

    private static String leaders(List<Leader> leaders) {
        return leaders.isEmpty() ? "none" : leaders.stream().map(l -> l.worker() + " epoch " + DemoLayout.hex(l.epoch()))
                .collect(Collectors.joining(" -> "));
    }

    /** Prints the summary table and the verdict. */
    static void print(DemoResult r, DemoOptions options, Narrator say) {
        String waves = java.util.Arrays.stream(options.waves()).mapToObj(Integer::toString).collect(Collectors.joining(" + "));
        say.plain("");
        say.plain("Summary");
        row(say, "tasks done", r.tasksDone() + " of " + r.tasksPlanned() + " (waves of " + waves + "), each applied and completed once");
        row(say, "retries", r.retries() + " (claims delivered again after their worker died or lost its session)");
        row(say, "fenced rejections", Integer.toString(r.fencedRejections()) + (options.fenced() ? "" : " (fencing was off)"));
        row(say, "stale writes taken", Integer.toString(r.staleAccepted()));
        row(say, "coordinators", leaders(r.leaders()));
        row(say, "batch.size applied", r.configVersions().entrySet().stream().sorted(Map.Entry.comparingByKey(Verdict::byNumber))
                .map(e -> e.getKey() + " " + e.getValue().stream().map(v -> "v" + v).collect(Collectors.joining(",")))
                .collect(Collectors.joining(" | ")));
        row(say, "ledger", r.ledger() + " (the planned amounts add up to " + r.expected() + ")");
        row(say, "session timeout", r.sessionTimeoutMs() < 0 ? "unknown" : r.sessionTimeoutMs() + " ms (negotiated)");
        row(say, "time taken", String.format(Locale.ROOT, "%.1f s", r.elapsed().toMillis() / 1000.0));
        say.plain("");
        say.plain("Invariants");
        r.invariants().forEach((name, holds) -> say.plain("  " + (holds ? "ok    " : "FAILED") + "  " + name));
        say.plain("");
        if (r.ok()) {
            say.plain("RESULT: ok, all " + r.invariants().size() + " invariants hold");
        } else {
            say.plain("RESULT: FAILED");
            r.failures().forEach(f -> say.plain("  - " + f));
        }
    }

    private static int byNumber(String a, String b) {
        return Integer.compare(Integer.parseInt(a.replaceAll("\\D", "")), Integer.parseInt(b.replaceAll("\\D", "")));
    }

    private static void row(Narrator say, String name, String value) {
        say.plain(String.format(Locale.ROOT, "  %-19s %s", name, value));
    }
}

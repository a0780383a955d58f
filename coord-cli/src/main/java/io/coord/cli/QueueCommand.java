package io.coord.cli;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import io.coord.CoordClient;
import io.coord.queue.EnqueueResult;
import io.coord.queue.QueueOptions;
import io.coord.queue.QueueStats;
import io.coord.queue.Task;
import io.coord.queue.TaskId;
import io.coord.queue.TaskQueue;
import io.coord.queue.TaskList;
import io.coord.queue.TaskSpec;
import io.coord.queue.UndecodableTask;
import java.io.PrintWriter;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code coord queue}: operator commands for a Coord task queue ({@code /queues/<name>}): stats,
 * listings, dead-letter handling and putting a task. Payloads are shown and taken as JSON, whatever
 * type the queue's own producers use.
 *
 * <p>With {@code --json} each subcommand prints one JSON object instead of text, with everything the
 * text shows: counts as numbers, instants as ISO-8601 strings, durations as milliseconds in fields
 * named {@code ...Ms} (as {@code coord status} and {@code coord members} do), payloads embedded as
 * JSON, and undecodable nodes with their whole bytes in base64 (the text shows only the first ones).
 * Errors stay one line on stderr with the usual exit code, as with every other command's {@code --json}.
 */
@Command(name = "queue", mixinStandardHelpOptions = true,
        description = {"Inspects and administers a Coord task queue (/queues/<name>).", "",
            "Listings read the whole queue (at most its depth cap); consumers never do."},
        subcommands = {QueueCommand.Stats.class, QueueCommand.Ls.class, QueueCommand.Dead.class,
            QueueCommand.Requeue.class, QueueCommand.Purge.class, QueueCommand.Put.class})
final class QueueCommand implements Callable<Integer> {
    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CoordCommand.USAGE;
    }

    /** What every queue subcommand takes: where the ensemble is and which queue. */
    static final class Target {
        @Spec(Spec.Target.MIXEE)
        CommandSpec spec;

        @Mixin
        ConnectOptions connection;

        @Parameters(index = "0", paramLabel = "NAME", description = "the queue's name")
        String name;

        @Option(names = "--json", description = "print one JSON object instead of text")
        boolean json;

        CoordClient connect() throws InterruptedException {
            return connection.connect(spec);
        }

        TaskQueue<JsonNode> open(CoordClient client) {
            return open(client, QueueOptions.builder().partitions(QueueOptions.AS_RECORDED).build());
        }

        /** Opens the queue with the partition count the server recorded (a partitioned queue's count lives there). */
        TaskQueue<JsonNode> open(CoordClient client, QueueOptions options) {
            QueueOptions recorded = options.partitions() == QueueOptions.AS_RECORDED ? options
                    : options.toBuilder().partitions(QueueOptions.AS_RECORDED).build();
            return TaskQueue.open(client, name, Codec.json(JsonNode.class), recorded);
        }

        PrintWriter out() {
            return spec.commandLine().getOut();
        }
    }

    /** Runs {@code body} on the opened queue, closing both after. */
    @FunctionalInterface
    interface Body {
        int run(TaskQueue<JsonNode> queue, PrintWriter out);
    }

    static int withQueue(Target target, Body body) throws InterruptedException {
        return withQueue(target, QueueOptions.defaults(), body);
    }

    static int withQueue(Target target, QueueOptions options, Body body) throws InterruptedException {
        try (CoordClient client = target.connect(); TaskQueue<JsonNode> queue = target.open(client, options)) {
            int code = body.run(queue, target.out());
            target.out().flush();
            return code;
        }
    }

    static String seconds(Duration d) {
        return String.format("%.1f s", d.toMillis() / 1000.0);
    }

    static String shortJson(JsonNode payload) {
        String json = payload == null ? "null" : payload.toString();
        return json.length() <= 120 ? json : json.substring(0, 117) + "...";
    }

    /** Each node that cannot be decoded: its id, UNDECODABLE, why, and its first bytes (repair them, then requeue). */
    static void printUndecodable(List<UndecodableTask> bad, PrintWriter out) {
        for (UndecodableTask u : bad) {
            out.println(u.id() + "  UNDECODABLE  " + u.data().length + " bytes  error: " + u.error().replaceAll("\\s*\\R\\s*", " "));
            out.println("  bytes: " + shortText(u.preview()));
        }
    }

    /** One task as JSON: every field of the snapshot; the payload embedded as JSON, not as a string. */
    static ObjectNode taskJson(Task<JsonNode> t) {
        ObjectNode o = Codec.mapper().createObjectNode();
        o.put("id", t.id().name());
        o.put("partition", t.id().partition());
        o.put("state", t.state().name());
        o.put("lane", t.lane());
        o.put("attempts", t.attempts());
        o.put("deliveries", t.deliveries());
        o.put("maxRetries", t.maxRetries());
        o.put("enqueuedAt", iso(t.enqueuedAt()));
        o.put("notBefore", iso(t.notBefore()));
        o.put("claimedBy", t.claimedBy());
        o.put("claimedAt", iso(t.claimedAt()));
        o.put("lastError", t.lastError());
        o.set("payload", t.payload()); // a null payload becomes JSON null
        return o;
    }

    /**
     * The undecodable nodes as JSON: id, path, size, error, a readable preview (JSON escapes any control
     * character, so the bytes cannot garble a terminal) and all the bytes in base64, to repair them from.
     */
    static ArrayNode undecodableJson(List<UndecodableTask> bad) {
        ArrayNode list = Codec.mapper().createArrayNode();
        for (UndecodableTask u : bad) {
            byte[] data = u.data();
            list.addObject()
                    .put("id", u.id().name())
                    .put("partition", u.id().partition())
                    .put("path", u.path())
                    .put("size", data.length)
                    .put("error", u.error())
                    .put("preview", u.preview())
                    .put("dataBase64", Base64.getEncoder().encodeToString(data));
        }
        return list;
    }

    private static String iso(Instant at) {
        return at == null ? null : at.toString();
    }

    /** A listing ({@code ls}, {@code dead}) as one JSON object: the tasks under {@code field}, then the undecodable nodes. */
    static ObjectNode listingJson(String queue, String field, TaskList<JsonNode> list) {
        ObjectNode o = Codec.mapper().createObjectNode();
        o.put("queue", queue);
        ArrayNode tasks = o.putArray(field);
        list.forEach(t -> tasks.add(taskJson(t)));
        o.set("undecodable", undecodableJson(list.undecodable()));
        return o;
    }

    static String undecodableCount(TaskList<?> list) {
        return list.undecodable().isEmpty() ? "" : ", " + list.undecodable().size() + " undecodable";
    }

    /** {@code text} on one line, control characters escaped (bad bytes must not garble the terminal), cut at 120. */
    static String shortText(String text) {
        StringBuilder out = new StringBuilder();
        text.codePoints().forEach(c -> out.append(Character.isISOControl(c) ? String.format("\\u%04x", c) : Character.toString(c)));
        return out.length() <= 120 ? out.toString() : out.substring(0, 117) + "...";
    }

    @Command(name = "stats", mixinStandardHelpOptions = true, description = "Counts, claims with owner and age, the oldest pending age.")
    static final class Stats implements Callable<Integer> {
        @Mixin
        Target target;

        @Override
        public Integer call() throws InterruptedException {
            return withQueue(target, (q, out) -> {
                QueueStats s = q.stats();
                if (target.json) {
                    ObjectNode o = Codec.mapper().createObjectNode();
                    o.put("queue", s.queue());
                    o.put("partitions", q.options().partitions());
                    o.put("pending", s.pending());
                    o.put("waiting", s.waiting());
                    ArrayNode processing = o.putArray("processing");
                    for (QueueStats.Processing p : s.processing()) {
                        processing.addObject().put("task", p.task().name()).put("partition", p.task().partition()).put("owner", p.owner())
                                .put("ageMs", p.age().toMillis()).put("attempts", p.attempts());
                    }
                    o.put("dead", s.dead());
                    o.put("oldestPendingAgeMs", s.oldestPendingAge().toMillis());
                    o.put("depth", s.depth());
                    o.put("depthCap", s.depthCap());
                    o.set("undecodable", undecodableJson(s.undecodable()));
                    ArrayNode foreign = o.putArray("foreign");
                    s.foreign().forEach(foreign::add);
                    out.println(o);
                    return CoordCommand.OK;
                }
                out.println("queue       " + s.queue());
                if (q.options().partitions() > 1) {
                    out.println("partitions  " + q.options().partitions() + " (counts are their sums; the cap is theirs together)");
                }
                out.println("pending     " + s.pending() + " ready, " + s.waiting() + " waiting (delayed or in a retry backoff)");
                out.println("processing  " + s.processing().size());
                for (QueueStats.Processing p : s.processing()) {
                    out.println("  " + p.task() + "  owner " + p.owner() + "  for " + seconds(p.age()) + "  attempts " + p.attempts());
                }
                out.println("dead        " + s.dead());
                out.println("oldest      " + seconds(s.oldestPendingAge()) + " pending");
                out.println("depth       " + s.depth() + " of cap " + s.depthCap());
                if (!s.undecodable().isEmpty()) {
                    out.println("undecodable " + s.undecodable().size() + " task node(s) that cannot be decoded (a consumer moves"
                            + " each to the dead letters):");
                    printUndecodable(s.undecodable(), out);
                }
                if (!s.foreign().isEmpty()) {
                    out.println("foreign     " + s.foreign().size() + " node(s) that are not the queue's (ignored, logged once): "
                            + String.join(", ", s.foreign()));
                }
                return CoordCommand.OK;
            });
        }
    }

    @Command(name = "ls", mixinStandardHelpOptions = true, description = "Lists pending and processing tasks, highest lane first, then by sequence.")
    static final class Ls implements Callable<Integer> {
        @Mixin
        Target target;

        @Override
        public Integer call() throws InterruptedException {
            return withQueue(target, (q, out) -> {
                TaskList<JsonNode> tasks = q.tasks();
                if (target.json) {
                    out.println(listingJson(target.name, "tasks", tasks));
                    return CoordCommand.OK;
                }
                for (Task<JsonNode> t : tasks) {
                    out.println(t.id() + "  " + t.state() + (t.claimedBy() == null ? "" : " by " + t.claimedBy())
                            + "  lane " + t.lane() + "  attempts " + t.attempts()
                            + (t.notBefore() != null && t.notBefore().isAfter(Instant.now()) ? "  not before " + t.notBefore() : "")
                            + "  " + shortJson(t.payload()));
                }
                printUndecodable(tasks.undecodable(), out);
                out.println(tasks.size() + " task(s)" + undecodableCount(tasks));
                return CoordCommand.OK;
            });
        }
    }

    @Command(name = "dead", mixinStandardHelpOptions = true, description = "Lists the dead letters with their last error.")
    static final class Dead implements Callable<Integer> {
        @Mixin
        Target target;

        @Override
        public Integer call() throws InterruptedException {
            return withQueue(target, (q, out) -> {
                TaskList<JsonNode> dead = q.deadLetters();
                if (target.json) {
                    out.println(listingJson(target.name, "deadLetters", dead));
                    return CoordCommand.OK;
                }
                for (Task<JsonNode> t : dead) {
                    out.println(t.id() + "  attempts " + t.attempts() + "  last error: " + t.lastError() + "  " + shortJson(t.payload()));
                }
                printUndecodable(dead.undecodable(), out);
                out.println(dead.size() + " dead letter(s)" + undecodableCount(dead));
                return CoordCommand.OK;
            });
        }
    }

    @Command(name = "requeue", mixinStandardHelpOptions = true,
            description = "Moves dead letters back to the queue (at the back, attempts reset): all, or one with --task.")
    static final class Requeue implements Callable<Integer> {
        @Mixin
        Target target;

        @Option(names = "--task", paramLabel = "TASK-ID", description = "only this dead letter, e.g. task-0000000042")
        String task;

        @Override
        public Integer call() throws InterruptedException {
            TaskId one;
            try {
                one = task == null ? null : new TaskId(task);
            } catch (RuntimeException e) {
                throw new ParameterException(target.spec.commandLine(), e.getMessage());
            }
            return withQueue(target, (q, out) -> {
                if (one != null) {
                    TaskId as = q.requeue(one);
                    out.println(target.json ? requeuedJson(1, one, as) : "requeued " + one + " as " + as);
                } else {
                    int count = q.requeueAll();
                    out.println(target.json ? requeuedJson(count, null, null) : "requeued " + count + " dead letter(s)");
                }
                return CoordCommand.OK;
            });
        }

        /** The same fields with or without --task (null without), so a script reads one shape. */
        private ObjectNode requeuedJson(int count, TaskId deadLetter, TaskId as) {
            ObjectNode o = Codec.mapper().createObjectNode();
            o.put("queue", target.name);
            o.put("requeued", count);
            o.put("deadLetter", deadLetter == null ? null : deadLetter.name());
            o.put("task", as == null ? null : as.name());
            return o;
        }
    }

    @Command(name = "purge", mixinStandardHelpOptions = true,
            description = "Deletes every dead letter of the queue. Pending and processing tasks are not touched.")
    static final class Purge implements Callable<Integer> {
        @Mixin
        Target target;

        @Override
        public Integer call() throws InterruptedException {
            return withQueue(target, (q, out) -> {
                int purged = q.purgeDeadLetters();
                out.println(target.json ? Codec.mapper().createObjectNode().put("queue", target.name).put("purged", purged)
                        : "purged " + purged + " dead letter(s)");
                return CoordCommand.OK;
            });
        }
    }

    @Command(name = "put", mixinStandardHelpOptions = true, description = "Enqueues one task with a JSON payload; prints its id (with --json, also whether this call added it).")
    static final class Put implements Callable<Integer> {
        @Mixin
        Target target;

        @Parameters(index = "1", paramLabel = "JSON", description = "the payload, e.g. '{\"job\":\"resize\",\"id\":42}'")
        String json;

        @Option(names = "--key", paramLabel = "KEY", description = "idempotency key: nothing is added while a task with it is pending or processing")
        String key;

        @Option(names = "--lane", paramLabel = "N", defaultValue = "0", description = "priority lane, below --lanes (default: ${DEFAULT-VALUE})")
        int lane;

        // The lane count lives in the options the queue's own clients open it with, not on the
        // server, so the operator says it (as for the producers' QueueOptions.lanes).
        @Option(names = "--lanes", paramLabel = "N", defaultValue = "1",
                description = "how many lanes the queue's clients open it with (QueueOptions.lanes, default: ${DEFAULT-VALUE})")
        int lanes;

        @Option(names = "--delay", paramLabel = "DURATION", converter = DurationConverter.class,
                description = "not handed out before this much time has passed, e.g. 30s")
        Duration delay;

        @Override
        public Integer call() throws InterruptedException {
            JsonNode payload;
            try {
                payload = Codec.mapper().readTree(json);
            } catch (JsonProcessingException e) {
                throw new ParameterException(target.spec.commandLine(), "the payload is not valid JSON: " + e.getOriginalMessage());
            }
            if (payload == null || payload.isMissingNode()) {
                throw new ParameterException(target.spec.commandLine(), "the payload is empty; give a JSON value");
            }
            TaskSpec spec = TaskSpec.defaults().lane(lane);
            if (key != null) {
                spec = spec.idempotencyKey(key);
            }
            if (delay != null) {
                spec = spec.notBefore(Instant.now().plus(delay));
            }
            TaskSpec chosen = spec;
            QueueOptions options;
            try {
                options = QueueOptions.builder().lanes(lanes).build();
            } catch (RuntimeException e) {
                throw new ParameterException(target.spec.commandLine(), "--lanes " + lanes + ": " + e.getMessage());
            }
            if (lane < 0 || lane >= lanes) {
                throw new ParameterException(target.spec.commandLine(), "--lane " + lane + " is not a lane of a queue with "
                        + lanes + " lane(s) (0.." + (lanes - 1) + "); give the queue's lane count with --lanes");
            }
            return withQueue(target, options, (q, out) -> {
                // submit() is enqueue() with what happened; only --json shows it (text stays the bare id).
                EnqueueResult added = q.submit(payload, chosen);
                out.println(target.json ? Codec.mapper().createObjectNode().put("queue", target.name).put("id", added.id().name())
                        .put("partition", added.id().partition()).put("outcome", added.outcome().name()) : added.id().name());
                return CoordCommand.OK;
            });
        }
    }
}

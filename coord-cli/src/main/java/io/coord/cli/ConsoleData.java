package io.coord.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.coord.Codec;
import io.coord.cli.doctor.QueueTrees;
import io.coord.CoordClient;
import io.coord.CoordPath;
import io.coord.barrier.DoubleBarrier;
import io.coord.config.ConfigKey;
import io.coord.config.ConfigOptions;
import io.coord.config.ConfigStore;
import io.coord.config.Versioned;
import io.coord.election.Election;
import io.coord.lock.LockInfo;
import io.coord.lock.Locks;
import io.coord.membership.Group;
import io.coord.membership.GroupOptions;
import io.coord.membership.GroupView;
import io.coord.queue.QueueOptions;
import io.coord.queue.QueueStats;
import io.coord.queue.TaskList;
import io.coord.queue.TaskQueue;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.zookeeper.KeeperException;

/**
 * What each page of the web console shows, read through the recipes' own inspection APIs (the
 * same ones, and the same JSON, as {@code coord lock show}, {@code coord queue stats}, {@code coord
 * leader show}, {@code coord members ls}, {@code coord barrier status} and {@code coord config who}),
 * for every lock, queue, election, group, barrier and config key of the namespace.
 *
 * <p>Read-only: nothing here creates, sets or deletes a node. Recipes whose opening would create
 * nodes (a queue's missing directories) are only opened when those nodes exist already. Groups
 * stay open between polls, because flaps are what an observer sees over time.
 */
final class ConsoleData implements AutoCloseable {
    private static final CoordPath QUEUES = CoordPath.of("/queues");
    private static final CoordPath BARRIERS = CoordPath.of("/barriers");
    private static final CoordPath CONFIG = CoordPath.of("/config");
    /** The directories TaskQueue.open creates when one is missing: the console opens a queue only when they all exist. */
    private static final int HISTORY_SHOWN = 5;
    static final Duration DOCTOR_EVERY = Duration.ofSeconds(5);

    private final CoordClient client;
    private final FindingsSource findings;
    private final Map<String, Group<JsonNode>> groups = new ConcurrentHashMap<>();
    private final Map<String, TaskQueue<JsonNode>> queues = new ConcurrentHashMap<>();
    private ObjectNode lastFindings;
    private long lastFindingsAt;

    ConsoleData(CoordClient client, FindingsSource findings) {
        this.client = client;
        this.findings = findings;
    }

    /** {@code /api/locks}: every lock under /locks, each holder and waiter as {@code coord lock show --json} prints them. */
    ObjectNode locks() throws InterruptedException {
        ObjectNode o = page();
        ArrayNode list = o.putArray("locks");
        for (LockInfo lock : Locks.list(client, Locks.ROOT)) {
            ObjectNode l = list.addObject();
            l.put("path", lock.path().value());
            ArrayNode holders = l.putArray("holders");
            lock.holders().forEach(e -> holders.add(LockCommand.entry(e)));
            ArrayNode waiters = l.putArray("waiters");
            lock.waiters().forEach(e -> waiters.add(LockCommand.entry(e)));
            ArrayNode foreign = l.putArray("foreign");
            lock.foreign().forEach(foreign::add);
        }
        return o;
    }

    /** {@code /api/queues}: each queue's stats (depth, ready, delayed, claims with age and worker) and its dead letters. */
    ObjectNode queues() throws Exception {
        ObjectNode o = page();
        ArrayNode list = o.putArray("queues");
        TreeSet<String> present = children(QUEUES);
        closeGone(queues, present, TaskQueue::close);
        for (String name : present) {
            List<String> missing = missingDirs(name);
            if (!missing.isEmpty()) {
                list.addObject().put("queue", name).put("incomplete", "no " + String.join(", ", missing)
                        + " directory: not a Coord queue yet (opening it would create them; the console writes nothing)");
                continue;
            }
            TaskQueue<JsonNode> q = queues.computeIfAbsent(name,
                    n -> TaskQueue.open(client, n, Codec.json(JsonNode.class),
                            QueueOptions.builder().partitions(QueueOptions.AS_RECORDED).build()));
            QueueStats s = q.stats();
            ObjectNode n = list.addObject();
            n.put("queue", s.queue());
            n.put("depth", s.depth());
            n.put("depthCap", s.depthCap());
            n.put("ready", s.pending());
            n.put("delayed", s.waiting());
            n.put("oldestPendingAgeMs", s.oldestPendingAge().toMillis());
            ArrayNode claims = n.putArray("claims");
            for (QueueStats.Processing p : s.processing()) {
                claims.addObject().put("task", p.task().name()).put("worker", p.owner()).put("ageMs", p.age().toMillis())
                        .put("attempts", p.attempts());
            }
            TaskList<JsonNode> dead = q.deadLetters();
            n.put("deadCount", s.dead());
            ArrayNode deadList = n.putArray("dead");
            dead.forEach(t -> deadList.add(QueueCommand.taskJson(t)));
            n.set("undecodable", QueueCommand.undecodableJson(s.undecodable()));
        }
        return o;
    }

    /** {@code /api/elections}: each election's leader, epoch and candidates ({@code coord leader show --json}), and each group's members and flaps. */
    ObjectNode elections() throws Exception {
        ObjectNode o = page();
        ArrayNode elections = o.putArray("elections");
        for (String name : children(Election.ROOT)) {
            try (Election e = Election.open(client, name)) {
                elections.add(Codec.mapper().readTree(LeaderCommand.Show.json(e, e.leader(), e.candidates())));
            }
        }
        ArrayNode list = o.putArray("groups");
        TreeSet<String> present = children(Group.ROOT);
        closeGone(groups, present, Group::close);
        for (String name : present) {
            Group<JsonNode> g = group(name);
            GroupView<JsonNode> view = g.view();
            ObjectNode n = list.addObject();
            n.put("group", name);
            n.put("version", view.version());
            ArrayNode members = n.putArray("members");
            view.members().values().forEach(m -> members.add(MembersCommand.toJson(m)));
            ArrayNode flaps = n.putArray("flaps");
            g.flaps().values().forEach(f -> flaps.addObject().put("id", f.memberId()).put("count", f.count())
                    .put("lastAt", f.lastAt().toString()).put("downtimeMs", f.lastDowntime().toMillis()));
        }
        return o;
    }

    /** {@code /api/barriers}: each barrier's generation, phase, arrived, missing and whether it broke ({@code coord barrier status --json}). */
    ObjectNode barriers() throws Exception {
        ObjectNode o = page();
        ArrayNode list = o.putArray("barriers");
        for (String name : children(BARRIERS)) {
            list.add(Codec.mapper().readTree(BarrierCommand.json(DoubleBarrier.status(client, name))));
        }
        return o;
    }

    /** {@code /api/config}: each key's released version and value, its last versions, a canary in flight and who runs what. */
    ObjectNode config() throws Exception {
        ObjectNode o = page();
        ArrayNode list = o.putArray("keys");
        ConfigStore store = ConfigStore.open(client, ConfigOptions.defaults());
        for (String app : children(CONFIG)) {
            for (String key : children(CONFIG.child(app))) {
                if (key.startsWith(".")) {
                    continue; // .history and .canary are Coord's own; ConfigLs lists anything else
                }
                ConfigKey<JsonNode> k = ConfigKey.json(app, key);
                ObjectNode n = list.addObject();
                n.put("app", app);
                n.put("key", key);
                n.put("path", k.path().value());
                Optional<Versioned<JsonNode>> released;
                try {
                    released = store.get(k);
                } catch (io.coord.CodecException e) {
                    n.put("error", "not a JSON key: " + e.getMessage());
                    continue;
                }
                if (released.isPresent()) {
                    n.put("version", released.get().version());
                    n.put("modified", released.get().modified().toString());
                    n.set("value", released.get().value());
                } else {
                    n.putNull("version");
                }
                ArrayNode history = n.putArray("history");
                store.history(k).stream().limit(HISTORY_SHOWN).forEach(v -> history.addObject().put("version", v.version())
                        .put("modified", v.modified().toString()).put("value", v.value()));
                Optional<ConfigStore.Canary> canary = store.canaryOf(k);
                if (canary.isPresent()) {
                    n.putObject("canary").put("percent", canary.get().percent()).put("revision", canary.get().revision())
                            .put("value", canary.get().value());
                } else {
                    n.putNull("canary");
                }
                ArrayNode who = n.putArray("instances");
                for (ConfigStore.Report r : store.who(k)) {
                    who.addObject().put("instance", r.instance()).put("version", r.version()).put("canary", r.canary())
                            .put("stale", r.stale()).put("appliedAt", r.appliedAt().toString());
                }
            }
        }
        return o;
    }

    /**
     * {@code /api/findings}: the doctor's findings, worst first. A doctor's pass reads the whole
     * namespace and asks every server for its watches, so it runs at most every {@link #DOCTOR_EVERY}
     * however often the page polls; {@code at} says when the shown pass ran.
     */
    synchronized ObjectNode findings() throws Exception {
        if (lastFindings != null && System.nanoTime() - lastFindingsAt < DOCTOR_EVERY.toNanos()) {
            return lastFindings;
        }
        ObjectNode o = page();
        o.put("doctor", findings != FindingsSource.NONE);
        ArrayNode list = o.putArray("findings");
        findings.findings().stream()
                .sorted((a, b) -> b.severity().compareTo(a.severity()))
                .forEach(f -> list.add(Codec.mapper().valueToTree(f)));
        lastFindings = o;
        lastFindingsAt = System.nanoTime();
        return o;
    }

    /** Closes and forgets the kept-open recipes whose node is gone. */
    private static <R> void closeGone(Map<String, R> open, Set<String> present, Consumer<R> close) {
        open.entrySet().removeIf(e -> {
            if (present.contains(e.getKey())) {
                return false;
            }
            close.accept(e.getValue());
            return true;
        });
    }

    private static ObjectNode page() {
        return Codec.mapper().createObjectNode().put("at", Instant.now().toString());
    }

    private Group<JsonNode> group(String name) throws InterruptedException {
        Group<JsonNode> g = groups.get(name);
        if (g == null) {
            // Read any JSON, however other programs wrote it, up to the znode limit (as coord members does).
            g = Group.open(client, name, GroupOptions.builder(JsonNode.class).maxMetadataBytes(1_000_000).build());
            Group<JsonNode> raced = groups.putIfAbsent(name, g);
            if (raced != null) {
                g.close();
                g = raced;
            }
        }
        return g;
    }

    private List<String> missingDirs(String queue) throws Exception {
        return QueueTrees.missing(client, queue);
    }

    /** The children of {@code dir}, sorted; none if it does not exist. */
    private TreeSet<String> children(CoordPath dir) throws Exception {
        try {
            return new TreeSet<>(client.curator().getChildren().forPath(dir.value()));
        } catch (KeeperException.NoNodeException none) {
            return new TreeSet<>();
        }
    }

    @Override
    public void close() {
        groups.values().forEach(Group::close);
        groups.clear();
        queues.values().forEach(TaskQueue::close);
        queues.clear();
    }
}

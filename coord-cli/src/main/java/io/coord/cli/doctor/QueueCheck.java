package io.coord.cli.doctor;

import com.fasterxml.jackson.databind.JsonNode;
import io.coord.Codec;
import io.coord.CoordPath;
import io.coord.cli.doctor.Finding.Severity;
import io.coord.queue.QueueOptions;
import io.coord.queue.QueueStats;
import io.coord.queue.TaskQueue;
import io.coord.queue.UndecodableTask;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Every queue under {@code /queues}, through {@link TaskQueue#stats()}: depth against the cap
 * (WARNING from {@link DoctorOptions#queueDepthWarn()} of it, ERROR at it), claims older than
 * {@link DoctorOptions#claimAge()} (WARNING), dead letters (WARNING) and task nodes that do not decode
 * (ERROR). Payloads are read as JSON whatever type the queue's producers use.
 */
final class QueueCheck implements Check {
    static final CoordPath ROOT = CoordPath.of("/queues");

    @Override
    public String name() {
        return "queue";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) throws InterruptedException {
        QueueOptions options = QueueOptions.builder().depthCap(scan.options.queueDepthCap())
                .partitions(QueueOptions.AS_RECORDED).build();
        for (String name : scan.children(ROOT)) {
            String path = ROOT.child(name).value();
            List<String> missing = missingDirs(scan, name);
            if (!missing.isEmpty()) {
                findings.add(new Finding(Severity.INFO, "queue.incomplete", path, "no " + String.join(", ", missing)
                        + " directory", "not a Coord queue yet, or one being made: the doctor does not open it (opening"
                        + " creates the missing directories, and the doctor writes nothing)"));
                continue;
            }
            QueueStats s;
            try (TaskQueue<JsonNode> queue = TaskQueue.open(scan.client, name, Codec.json(JsonNode.class), options)) {
                s = queue.stats();
            }
            depth(scan, s, path, findings);
            List<QueueStats.Processing> old = s.processing().stream()
                    .filter(p -> p.age().compareTo(scan.options.claimAge()) > 0).toList();
            if (!old.isEmpty()) {
                findings.add(new Finding(Severity.WARNING, "queue.old-claim", path, old.size() + " claim(s) older than "
                        + Scan.human(scan.options.claimAge()) + ": " + old.stream().limit(5).map(p -> p.task().name() + " by " + p.owner()
                        + " for " + Scan.human(p.age())).collect(Collectors.joining(", ")) + (old.size() > 5 ? ", ..." : ""),
                        "a worker is stuck or slow on them: look at that worker; its claim ends (and the task is"
                                + " redelivered) when its session or claim timeout ends"));
            }
            if (s.dead() > 0) {
                findings.add(new Finding(Severity.WARNING, "queue.dead-letters", path, s.dead() + " dead letter(s)",
                        "read why with coord queue dead " + name + ", fix the cause, then coord queue requeue " + name
                                + " (or purge them)"));
            }
            if (!s.undecodable().isEmpty()) {
                findings.add(new Finding(Severity.ERROR, "queue.undecodable", path, s.undecodable().size()
                        + " task node(s) that do not decode: " + s.undecodable().stream().limit(5)
                        .map(u -> u.id().name()).collect(Collectors.joining(", ")),
                        "something other than this queue's producers wrote them; coord queue ls " + name
                                + " shows their bytes; a consumer dead-letters each one it reads"));
            }
        }
    }

    private static List<String> missingDirs(Scan scan, String name) throws InterruptedException {
        try {
            return QueueTrees.missing(scan.client, name);
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new io.coord.CoordException("cannot read queue " + name + ": " + e.getMessage(), e);
        }
    }

    private static void depth(Scan scan, QueueStats s, String path, List<Finding> findings) {
        int cap = s.depthCap();
        if (s.depth() >= cap) {
            findings.add(new Finding(Severity.ERROR, "queue.depth", path, "depth " + s.depth() + " at the cap of " + cap
                    + " (pending " + s.pending() + ", waiting " + s.waiting() + ", processing " + s.processing().size() + ")",
                    "producers are refused: add consumers or find why they stopped"));
        } else if (s.depth() >= scan.options.queueDepthWarn() * cap) {
            findings.add(new Finding(Severity.WARNING, "queue.depth", path, "depth " + s.depth() + " of a cap of " + cap
                    + " (pending " + s.pending() + ", waiting " + s.waiting() + ", processing " + s.processing().size() + ")",
                    "consumers fall behind: add consumers before producers are refused at the cap"));
        }
    }
}

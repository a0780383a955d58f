package io.coord.barrier;

import io.coord.CodecException;
import io.coord.CoordException;
import io.coord.CoordPath;
import io.coord.barrier.BarrierStatus.Arrival;
import io.coord.barrier.BarrierStatus.Phase;
import io.coord.barrier.BarrierStore.Root;
import io.coord.barrier.Generation.Members;
import io.coord.barrier.Generation.Seat;
import io.coord.internal.Zk;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/** Builds a {@link BarrierStatus} from one pass over the barrier's nodes (no watches, nothing written). */
final class StatusReader {
    private StatusReader() {
    }

    static BarrierStatus read(Zk zk, String name) throws InterruptedException {
        BarrierStore store = new BarrierStore(zk, Generation.rootOf(name));
        List<String> foreign = foreign(zk, store.root());
        Root root;
        try {
            root = store.readRoot(zk.curator(), null);
        } catch (CodecException e) {
            if (foreign.isEmpty()) {
                throw e;
            }
            root = null; // another tool's node at the path (Curator's barrier keeps no record): report what is there
        }
        if (root == null) {
            return BarrierStatus.absent(name, foreign);
        }
        GenerationRecord record = root.record();
        Generation g = new Generation(store.root(), record.generation());
        Members members;
        try {
            members = store.readMembers(zk.curator(), g, null);
        } catch (CoordException e) {
            if (!(e.getCause() instanceof KeeperException.NoNodeException)) {
                throw e;
            }
            members = new Members(Map.of(), java.util.Set.of(), 0);
        }
        Map<Long, String> names = new TreeMap<>();
        for (String node : store.readAdmitted(record.generation())) {
            Generation.parseSeat(node).ifPresent(s -> names.put(s.seq(), s.memberId()));
        }
        List<Arrival> arrived = new ArrayList<>();
        Map<Long, Seat> present = members.present();
        java.util.Set<Long> seqs = new java.util.TreeSet<>(present.keySet());
        seqs.addAll(members.left());
        for (long seq : seqs) {
            Seat seat = present.get(seq);
            String memberId = seat != null ? seat.memberId() : names.containsKey(seq) ? names.get(seq) : leftBy(zk, g, seq);
            Instant at = seat == null ? null : createdAt(zk, g.seat(seat.node()));
            arrived.add(new Arrival(memberId, seq, at, members.left().contains(seq), seat != null && at != null));
        }
        int parties = record.parties();
        int waitingFor = 0;
        List<String> missing = new ArrayList<>();
        switch (record.phase()) {
            case OPEN -> {
                List<Long> admitted = members.admitted(parties);
                waitingFor = (int) Math.max(0, parties - present.keySet().stream().filter(admitted::contains).count());
            }
            case READY -> {
                for (long s : members.admitted(parties)) {
                    if (!members.left().contains(s)) {
                        waitingFor++;
                        Seat seat = present.get(s);
                        missing.add((seat != null ? seat.memberId() : names.getOrDefault(s, "?")) + " (#" + s + ")"
                                + (seat == null ? " vanished" : ""));
                    }
                }
            }
            case BROKEN -> missing.addAll(record.failed());
            case DONE -> {
                // nothing missing
            }
        }
        return new BarrierStatus(name, true, record.generation(), record.phase(), parties,
                root.mtime() > 0 ? Instant.ofEpochMilli(root.mtime()) : null, arrived, waitingFor, missing,
                record.phase() == Phase.BROKEN ? record.brokenIn() : null, record.reason(), foreign);
    }

    /** The root's children that are not generations, sorted; none if the root does not exist. */
    private static List<String> foreign(Zk zk, CoordPath root) throws InterruptedException {
        try {
            return RootChildren.foreign(zk.call(root, () -> zk.curator().getChildren().forPath(root.value()))).stream().sorted().toList();
        } catch (CoordException e) {
            if (e.getCause() instanceof KeeperException.NoNodeException) {
                return List.of();
            }
            throw e;
        }
    }

    private static Instant createdAt(Zk zk, CoordPath seat) throws InterruptedException {
        Stat stat = zk.call(seat, () -> zk.curator().checkExists().forPath(seat.value()));
        return stat == null ? null : Instant.ofEpochMilli(stat.getCtime());
    }

    private static String leftBy(Zk zk, Generation g, long seq) {
        CoordPath marker = g.leftMarker(seq);
        try {
            byte[] data = zk.call(marker, () -> zk.curator().getData().forPath(marker.value()));
            return data == null || data.length == 0 ? "?" : new String(data, StandardCharsets.UTF_8);
        } catch (CoordException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }
}

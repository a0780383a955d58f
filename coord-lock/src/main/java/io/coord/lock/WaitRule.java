package io.coord.lock;

import io.coord.internal.SequentialNodes;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The lock family's decisions, pure: which children belong to a lock, in what order they queue,
 * whether a node holds, and which node(s) a waiter watches. No I/O; the ZooKeeper plumbing in
 * {@link ZkLockQueue} reads the children, asks here, and does what the answer says.
 *
 * <p>Names: Curator's protection prefix ({@code _c_<uuid>-}), then one of the {@link Type}
 * prefixes, then ZooKeeper's 10-digit sequence. A read node made under a write lease (reentrant
 * read, or a downgrade) is <em>anchored</em>: {@code read-at-<write sequence>-<sequence>}. It
 * queues at its write's place, not at the end, so writers that queued behind the write stay behind
 * the read that replaces it.
 *
 * <p>Rules:
 * <ul>
 *   <li>lock, write: holds when first in the queue; otherwise watches its predecessor;
 *   <li>read: holds when no write is ahead (its own anchor excepted); otherwise watches the
 *       nearest write ahead. Readers queue behind waiting writers, so writers never starve;
 *   <li>lease (semaphore of {@code slots}): holds among the first {@code slots}; the first
 *       waiter watches every holder; later waiters watch their predecessor and treat it being
 *       stamped (its data written at grant) as a wake-up, because a predecessor that was granted
 *       does not disappear;
 *   <li>only one waiter is woken per change (no herd), except readers behind one writer, who all
 *       become eligible at once.
 * </ul>
 */
final class WaitRule {
    /** The node kinds, each with its name prefix (kept here, in one place). */
    enum Type {
        LOCK("lock-"), READ("read-"), WRITE("write-"), LEASE("lease-");

        final String prefix;

        Type(String prefix) {
            this.prefix = prefix;
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /** Prefix part of an anchored read: {@code read-at-0000000005-}. */
    static final String ANCHOR = "at-";
    private static final String PROTECTION = "_c_";
    private static final int PROTECTION_LENGTH = 3 + 36 + 1;

    /** One parsed child: its name, kind, sequence, and the write sequence it is anchored to (-1: none). */
    record Node(String name, Type type, long sequence, long anchor) {
        /** Its place in the queue: the anchor's sequence for an anchored read, else its own. */
        long place() {
            return anchor >= 0 ? anchor : sequence;
        }
    }

    enum Outcome {
        /** The node holds. */
        GRANTED,
        /** The node waits; watch the nodes in {@link Decision#watch}. */
        WAIT,
        /** The node is not among the children: it was deleted or its session ended. */
        MISSING,
        /** An anchored read whose write is gone: the write lease was lost before the read was made. */
        ANCHOR_MISSING
    }

    /**
     * @param watch          the nodes to watch (empty unless WAIT)
     * @param wakeOnStamp    a watched node whose data was already written counts as a change
     * @param stampOnGrant   on GRANTED: write the node's data so a waiter watching it learns of the grant
     */
    record Decision(Outcome outcome, List<String> watch, boolean wakeOnStamp, boolean stampOnGrant) {
        Decision {
            watch = List.copyOf(watch);
            if ((outcome == Outcome.WAIT) == watch.isEmpty()) {
                throw new IllegalArgumentException("a WAIT decision needs nodes to watch, and only WAIT has any: "
                        + outcome + " " + watch);
            }
        }

        static Decision of(Outcome outcome) {
            return new Decision(outcome, List.of(), false, false);
        }
    }

    private static final Comparator<Node> ORDER =
            Comparator.comparingLong(Node::place).thenComparingLong(Node::sequence);

    private WaitRule() {
    }

    /** Parses one child name; empty if it is not a lock-family node (foreign nodes are ignored). */
    static Optional<Node> parse(String name) {
        long sequence = SequentialNodes.sequence(name);
        if (sequence < 0) {
            return Optional.empty();
        }
        String body = name.startsWith(PROTECTION) && name.length() > PROTECTION_LENGTH
                && name.charAt(PROTECTION_LENGTH - 1) == '-' ? name.substring(PROTECTION_LENGTH) : name;
        String head = body.substring(0, body.length() - 10);
        for (Type type : Type.values()) {
            if (head.equals(type.prefix)) {
                return Optional.of(new Node(name, type, sequence, -1));
            }
        }
        if (head.startsWith(Type.READ.prefix + ANCHOR) && head.endsWith("-")) {
            long anchor = SequentialNodes.sequence(head.substring(0, head.length() - 1));
            if (anchor >= 0 && head.length() == Type.READ.prefix.length() + ANCHOR.length() + 10 + 1) {
                return Optional.of(new Node(name, Type.READ, sequence, anchor));
            }
        }
        return Optional.empty();
    }

    /** The prefix of a read node anchored to the write node with {@code writeSequence}. */
    static String anchoredReadPrefix(long writeSequence) {
        return Type.READ.prefix + ANCHOR + String.format(java.util.Locale.ROOT, "%010d", writeSequence) + "-";
    }

    /** The children of {@code types}, in queue order (first in line first). */
    static List<Node> queue(Collection<String> children, Set<Type> types) {
        List<Node> out = new ArrayList<>();
        for (String child : children) {
            parse(child).filter(n -> types.contains(n.type())).ifPresent(out::add);
        }
        out.sort(ORDER);
        return out;
    }

    /** {@code queue} without the nodes named in {@code gone} (known deleted). */
    static List<Node> without(List<Node> queue, Collection<String> gone) {
        List<Node> out = new ArrayList<>(queue);
        out.removeIf(n -> gone.contains(n.name()));
        return out;
    }

    /**
     * Whether a GRANTED decision on a queue reduced by {@link #without} may be trusted without
     * re-reading the children. True when no node can ever appear ahead of a node of {@code type}
     * after it was created: sequences only grow, and only anchored reads queue at an earlier
     * place — which only writers have to fear.
     */
    static boolean grantSafeWithoutReread(Type type) {
        return type != Type.WRITE;
    }

    /**
     * Decides for the node named {@code ours}. {@code slots} is the semaphore's permits (1 for
     * every other kind). {@code requireAnchor}: an anchored read is only valid while its write is
     * there (true when acquiring; false when inspecting a lock after a downgrade finished).
     */
    static Decision decide(List<Node> queue, String ours, int slots, boolean requireAnchor) {
        if (slots < 1) {
            throw new IllegalArgumentException("slots must be >= 1, got " + slots);
        }
        int at = indexOf(queue, ours);
        if (at < 0) {
            return Decision.of(Outcome.MISSING);
        }
        Node me = queue.get(at);
        return switch (me.type()) {
            case LOCK, WRITE -> at == 0 ? Decision.of(Outcome.GRANTED) : waitFor(queue.get(at - 1), false);
            case READ -> decideRead(queue, at, me, requireAnchor);
            case LEASE -> decideLease(queue, at, slots);
        };
    }

    /** Whether {@code node} holds in {@code queue} (inspection: anchors need not be present). */
    static boolean holds(List<Node> queue, Node node, int slots) {
        return decide(queue, node.name(), slots, false).outcome() == Outcome.GRANTED;
    }

    private static Decision decideRead(List<Node> queue, int at, Node me, boolean requireAnchor) {
        if (me.anchor() >= 0 && requireAnchor
                && queue.stream().noneMatch(n -> n.type() == Type.WRITE && n.sequence() == me.anchor())) {
            return Decision.of(Outcome.ANCHOR_MISSING);
        }
        Node blocking = null;
        for (int i = 0; i < at; i++) {
            Node n = queue.get(i);
            if (n.type() == Type.WRITE && n.sequence() != me.anchor()) {
                blocking = n;
            }
        }
        return blocking == null ? Decision.of(Outcome.GRANTED) : waitFor(blocking, false);
    }

    private static Decision decideLease(List<Node> queue, int at, int slots) {
        if (at < slots) {
            // A successor may be watching us as its predecessor: tell it we were granted.
            boolean successorWaits = slots > 1 && at < queue.size() - 1;
            return new Decision(Outcome.GRANTED, List.of(), false, successorWaits);
        }
        if (at == slots) {
            // First waiter: any holder leaving frees our slot.
            return new Decision(Outcome.WAIT, queue.subList(0, slots).stream().map(Node::name).toList(), false, false);
        }
        return waitFor(queue.get(at - 1), slots > 1);
    }

    private static Decision waitFor(Node node, boolean wakeOnStamp) {
        return new Decision(Outcome.WAIT, List.of(node.name()), wakeOnStamp, false);
    }

    private static int indexOf(List<Node> queue, String name) {
        for (int i = 0; i < queue.size(); i++) {
            if (queue.get(i).name().equals(name)) {
                return i;
            }
        }
        return -1;
    }
}

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
 * prefixes, then a 10-digit sequence. The prefixes are Curator 5.9's own ({@code lock-} of
 * InterProcessMutex, {@code __READ__}/{@code __WRIT__} of InterProcessReadWriteLock), so a fleet
 * mixing Curator and Coord on one path queues in one order: Curator sorts Coord's nodes by the
 * same sequence and reads them with the same meaning, and so does this rule with Curator's. A read
 * made under a write lease (reentrant read, or a downgrade) is <em>anchored</em>, the way
 * Curator's read under its own write is: a non-sequential node named with its write's sequence
 * ({@code __READ__<write sequence>}). It queues at its write's place, not at the end, so writers
 * that queued behind the write (Curator's too: they sort by that sequence) stay behind the read
 * that replaces it.
 *
 * <p>Rules:
 * <ul>
 *   <li>lock, write: holds when first in the queue; otherwise watches its predecessor;
 *   <li>read: holds when no write is ahead (its own anchor, the write of the same sequence,
 *       excepted); otherwise watches the nearest write ahead. Readers queue behind waiting
 *       writers, so writers never starve;
 *   <li>only one waiter is woken per change (no herd), except readers behind one writer, who all
 *       become eligible at once.
 * </ul>
 *
 * <p>Children a family does not understand ({@link #foreign}) are never ignored by a decision:
 * {@link ZkLockQueue} refuses to decide with them present, because whoever made them follows a
 * rule this one cannot see.
 */
final class WaitRule {
    /** The node kinds, each with its name prefix (kept here, in one place). */
    enum Type {
        /** Curator's InterProcessMutex uses the same prefix. */
        LOCK("lock-"),
        /** Curator's InterProcessReadWriteLock names (both 8 characters, as its sorting needs). */
        READ("__READ__"),
        WRITE("__WRIT__"),
        /**
         * Curator InterProcessSemaphoreV2's lease nodes (in a semaphore's {@code leases/}). Only
         * named here: leases are counted, not queued ({@link SemaphoreLayout}), so no decision here.
         */
        LEASE("lease-");

        final String prefix;

        Type(String prefix) {
            this.prefix = prefix;
        }

        String label() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final String PROTECTION = "_c_";
    private static final int PROTECTION_LENGTH = 3 + 36 + 1;

    /** One parsed child: its name, kind and sequence (an anchored read carries its write's). */
    record Node(String name, Type type, long sequence) {
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

    /** @param watch the nodes to watch (empty unless WAIT) */
    record Decision(Outcome outcome, List<String> watch) {
        Decision {
            watch = List.copyOf(watch);
            if ((outcome == Outcome.WAIT) == watch.isEmpty()) {
                throw new IllegalArgumentException("a WAIT decision needs nodes to watch, and only WAIT has any: "
                        + outcome + " " + watch);
            }
        }

        static Decision of(Outcome outcome) {
            return new Decision(outcome, List.of());
        }
    }

    /** By sequence; an anchored read right after the write of its sequence (so that write is first while it holds). */
    private static final Comparator<Node> ORDER = Comparator.comparingLong(Node::sequence)
            .thenComparingInt(n -> n.type() == Type.WRITE ? 0 : 1)
            .thenComparing(Node::name);

    private WaitRule() {
    }

    /** Parses one child name; empty if it is not a lock-family node (see {@link #foreign}). */
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
                return Optional.of(new Node(name, type, sequence));
            }
        }
        return Optional.empty();
    }

    /** The name (before protection) of a read anchored to the write node with {@code writeSequence}. */
    static String anchoredReadName(long writeSequence) {
        return Type.READ.prefix + String.format(java.util.Locale.ROOT, "%010d", writeSequence);
    }

    /**
     * The children that are not nodes of {@code types}, by name: a typo'd child, another tool's
     * node, another family's (a mutex node under a read-write lock), or Coord's earlier
     * read-write layout ({@code read-}/{@code write-}, {@code read-at-}). Whoever made them waits
     * by a rule this one cannot see.
     */
    static List<String> foreign(Collection<String> children, Set<Type> types) {
        List<String> out = new ArrayList<>();
        for (String child : children) {
            if (parse(child).filter(n -> types.contains(n.type())).isEmpty()) {
                out.add(child);
            }
        }
        out.sort(Comparator.naturalOrder());
        return out;
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
     * Decides for the node named {@code ours}. {@code anchor}: the sequence of the write an
     * anchored read of ours was made under, which must still be there (the read is only valid
     * while its write holds), or -1 (not anchored, or inspecting a lock after a downgrade finished).
     * A semaphore's leases are not decided here ({@link SemaphoreLayout} counts them).
     */
    static Decision decide(List<Node> queue, String ours, long anchor) {
        int at = indexOf(queue, ours);
        if (at < 0) {
            return Decision.of(Outcome.MISSING);
        }
        Node me = queue.get(at);
        return switch (me.type()) {
            case LOCK, WRITE -> at == 0 ? Decision.of(Outcome.GRANTED) : waitFor(queue.get(at - 1));
            case READ -> decideRead(queue, at, me, anchor);
            case LEASE -> throw new IllegalArgumentException("a semaphore lease (" + ours + ") is counted, not queued");
        };
    }

    /** Whether {@code node} holds in {@code queue} (inspection: anchors need not be present). */
    static boolean holds(List<Node> queue, Node node) {
        return decide(queue, node.name(), -1).outcome() == Outcome.GRANTED;
    }

    private static Decision decideRead(List<Node> queue, int at, Node me, long anchor) {
        if (anchor >= 0 && queue.stream().noneMatch(n -> n.type() == Type.WRITE && n.sequence() == anchor)) {
            return Decision.of(Outcome.ANCHOR_MISSING);
        }
        Node blocking = null;
        for (int i = 0; i < at; i++) {
            Node n = queue.get(i);
            // A write of the read's own sequence is its anchor (sequences are unique otherwise):
            // Curator's read under its own write is named the same way and held the same way.
            if (n.type() == Type.WRITE && n.sequence() != me.sequence()) {
                blocking = n;
            }
        }
        return blocking == null ? Decision.of(Outcome.GRANTED) : waitFor(blocking);
    }

    private static Decision waitFor(Node node) {
        return new Decision(Outcome.WAIT, List.of(node.name()));
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

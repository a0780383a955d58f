package io.coord.barrier;

import io.coord.CoordPath;
import io.coord.internal.SequentialNodes;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Where one generation of one barrier lives, and how its node names read. The layout:
 * <pre>
 * /barriers/{name}                              persistent; data = the current generation's record
 * /barriers/{name}/{generation}                 persistent, 10 digits (0000000007)
 * /barriers/{name}/{generation}/members/m-{memberId}-{uuid}-{seq}   ephemeral-sequential: a seat
 * /barriers/{name}/{generation}/members/left-{seq}                      persistent: that seat left
 * /barriers/{name}/{generation}/decision        persistent, made with the generation: READY sets its data,
 *                                               a break during enter deletes it (each enter waiter's one watch)
 * /barriers/{name}/{generation}/ready           persistent: everyone entered (data: the admitted seats)
 * /barriers/{name}/{generation}/done            persistent: everyone left
 * /barriers/{name}/{generation}/broken          persistent: the generation broke (data: the record)
 * </pre>
 * A left marker sits beside the seats so that one listing shows who is in, who left and who
 * vanished; it is persistent because a member that left and then died has still left. Every
 * arrival also bumps the {@code members} node's data version, in the transaction that creates its
 * seat: the member whose arrival completes the count checks that version to know nobody arrived
 * since it looked, and creates its seat and records READY in one transaction.
 */
record Generation(CoordPath root, long number) {
    static final String BARRIERS = "barriers";
    static final String MEMBERS = "members";
    static final String READY = "ready";
    /**
     * The node each enter waiter watches, and nothing else: its data set (version 1) is READY, its
     * deletion a break during enter, so one exists-watch tells either decision by the event's type.
     */
    static final String DECISION = "decision";
    static final String DONE = "done";
    static final String BROKEN = "broken";
    static final String SEAT_PREFIX = "m-";
    static final String LEFT_PREFIX = "left-";
    /** A seat withdrawn before its generation was decided (a cancelled {@code enterAsync}): counts as never having come. */
    static final String WITHDRAWN_PREFIX = "withdrawn-";
    /**
     * The unique part of a seat's name: 32 hex digits, the making member object's own 16 (see
     * {@link ZkDoubleBarrier#newUnique()}) and 16 random ones per attempt.
     */
    static final int UNIQUE_LENGTH = 32;

    Generation {
        if (number < 1) {
            throw new IllegalArgumentException("generation must be >= 1, got " + number);
        }
    }

    static CoordPath rootOf(String barrierName) {
        return CoordPath.of(BARRIERS, barrierName);
    }

    /** The 10-digit node name of generation {@code number}. */
    static String nodeName(long number) {
        return String.format("%010d", number);
    }

    /** The generation a child of the root stands for, or -1 if it is not a generation node. */
    static long parseNumber(String child) {
        if (child.length() != 10) {
            return -1;
        }
        for (int i = 0; i < child.length(); i++) {
            if (child.charAt(i) < '0' || child.charAt(i) > '9') {
                return -1;
            }
        }
        return Long.parseLong(child);
    }

    CoordPath path() {
        return root.child(nodeName(number));
    }

    CoordPath members() {
        return path().child(MEMBERS);
    }

    CoordPath marker(String marker) {
        return path().child(marker);
    }

    CoordPath seat(String nodeName) {
        return members().child(nodeName);
    }

    CoordPath leftMarker(long seq) {
        return members().child(leftName(seq));
    }

    static String leftName(long seq) {
        return LEFT_PREFIX + String.format("%010d", seq);
    }

    /**
     * The withdrawn marker of seat {@code seq}, before ZooKeeper's sequence suffix: it is created
     * sequential because every child create takes a number from the same counter as the seats
     * (the parent's cversion; a delete takes none), so the marker names both numbers it accounts
     * for, the seat's and its own, and the seats' numbering keeps no unexplained gap.
     */
    CoordPath withdrawnMarker(long seq) {
        return members().child(WITHDRAWN_PREFIX + String.format("%010d", seq) + "-");
    }

    /**
     * The name a member's seat is created with, before ZooKeeper adds the sequence:
     * {@code m-{memberId}-{unique}-}. The unique part finds the seat again after a create whose
     * answer was lost (the protection Curator's protected mode gives, in the name's own layout).
     */
    static String seatName(String memberId, String unique) {
        if (unique.length() != UNIQUE_LENGTH) {
            throw new IllegalArgumentException("unique part must be " + UNIQUE_LENGTH + " characters, got \"" + unique + "\"");
        }
        return SEAT_PREFIX + memberId + "-" + unique + "-";
    }

    /** One seat, read from its node name. */
    record Seat(String node, String memberId, long seq) {
        /** How messages name a member: its id and its arrival order. */
        String label() {
            return memberId + " (#" + seq + ")";
        }

        /** The unique part of the seat's name (the member object that made it starts it with its own prefix). */
        String unique() {
            int end = node.length() - 11;
            return node.substring(end - UNIQUE_LENGTH, end);
        }
    }

    /** Reads a seat's node name ({@code m-<memberId>-<unique>-<seq>}); empty for anything else. */
    static Optional<Seat> parseSeat(String node) {
        long seq = SequentialNodes.sequence(node);
        // m- + at least one character + - + unique + - + 10 digits
        int uniqueEnd = node.length() - 11;
        int uniqueStart = uniqueEnd - UNIQUE_LENGTH;
        if (seq < 0 || !node.startsWith(SEAT_PREFIX) || uniqueStart - 1 <= SEAT_PREFIX.length()
                || node.charAt(uniqueEnd) != '-' || node.charAt(uniqueStart - 1) != '-') {
            return Optional.empty();
        }
        for (int i = uniqueStart; i < uniqueEnd; i++) {
            char c = node.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return Optional.empty();
            }
        }
        return Optional.of(new Seat(node, node.substring(SEAT_PREFIX.length(), uniqueStart - 1), seq));
    }

    /** The seat a left marker stands for, or -1. */
    static long parseLeft(String node) {
        if (!node.startsWith(LEFT_PREFIX)) {
            return -1;
        }
        return SequentialNodes.sequence(node);
    }

    /** The two numbers a withdrawn marker accounts for (the seat's, the marker's own), or an empty list. */
    static List<Long> parseWithdrawn(String node) {
        // withdrawn-{seq, 10 digits}-{own, 10 digits}
        if (!node.startsWith(WITHDRAWN_PREFIX) || node.length() != WITHDRAWN_PREFIX.length() + 21
                || node.charAt(WITHDRAWN_PREFIX.length() + 10) != '-') {
            return List.of();
        }
        long seat = SequentialNodes.sequence(node.substring(0, WITHDRAWN_PREFIX.length() + 10));
        long own = SequentialNodes.sequence(node);
        return seat < 0 || own < 0 ? List.of() : List.of(seat, own);
    }

    /**
     * One listing of a generation's {@code members} node: the seats still there (by sequence), the
     * sequences that left, the sequences withdrawn before the decision, and how many children were
     * ever deleted as far as {@code (cversion - numChildren) / 2} tells. ZooKeeper 3.9.5 counts
     * child creates in the parent's {@code cversion} but not deletes, so that count is at most
     * half the deletions (a lower bound, never more); what finds a vanished seat for sure is its
     * number: every child create takes the next number, so while OPEN each number below the
     * newest is a seat or accounted for by a withdrawn marker ({@link BarrierRule#vanished}).
     */
    record Members(Map<Long, Seat> present, Set<Long> left, int deletions, Set<Long> withdrawn) {
        Members {
            present = Collections.unmodifiableMap(new TreeMap<>(present));
            left = Collections.unmodifiableSet(new TreeSet<>(left));
            withdrawn = Collections.unmodifiableSet(new TreeSet<>(withdrawn));
            if (deletions < 0) {
                throw new IllegalArgumentException("deletions must be >= 0, got " + deletions);
            }
        }

        Members(Map<Long, Seat> present, Set<Long> left, int deletions) {
            this(present, left, deletions, Set.of());
        }

        static Members parse(List<String> children, int cversion, int numChildren) {
            Map<Long, Seat> present = new TreeMap<>();
            Set<Long> left = new TreeSet<>();
            Set<Long> withdrawn = new TreeSet<>();
            for (String child : children) {
                parseSeat(child).ifPresent(s -> present.put(s.seq(), s));
                long l = parseLeft(child);
                if (l >= 0) {
                    left.add(l);
                }
                withdrawn.addAll(parseWithdrawn(child));
            }
            return new Members(present, left, Math.max(0, (cversion - numChildren) / 2), withdrawn);
        }

        /**
         * Seats deleted other than by a withdrawal, as far as the count shows (members whose
         * sessions ended); each withdrawal accounts for two numbers and one deletion. A seat that
         * vanished also shows as a number that is neither a seat, a left marker nor withdrawn.
         */
        int vanished() {
            return Math.max(0, deletions - withdrawn.size() / 2);
        }

        /**
         * The sequences a generation of {@code parties} admits: the first {@code parties} not
         * withdrawn, in arrival order (0, 1, 2, ... when nobody withdrew). Withdrawals happen only
         * while the generation is OPEN, so once it is READY this list is fixed.
         */
        List<Long> admitted(int parties) {
            List<Long> out = new java.util.ArrayList<>(parties);
            for (long s = 0; out.size() < parties; s++) {
                if (!withdrawn.contains(s)) {
                    out.add(s);
                }
            }
            return out;
        }

        /** The seat that arrived last before {@code seq} and did not withdraw; -1 if none (seq is the first). */
        long before(long seq) {
            for (long s = seq - 1; s >= 0; s--) {
                if (!withdrawn.contains(s)) {
                    return s;
                }
            }
            return -1;
        }

        /** Arrivals so far: the highest sequence ever seen + 1 (seats that vanished still count as arrived). */
        long arrivals() {
            long max = -1;
            for (long s : present.keySet()) {
                max = Math.max(max, s);
            }
            for (long s : left) {
                max = Math.max(max, s);
            }
            for (long s : withdrawn) {
                max = Math.max(max, s);
            }
            return max + 1;
        }
    }
}

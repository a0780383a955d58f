package io.coord.bench;

import java.util.Objects;

/**
 * One measured figure: ours beside its peer from the same run, both medians over rounds.
 *
 * @param bench    benchmark name, e.g. {@code limits.createDelete}
 * @param metric   what was measured, e.g. {@code throughput} or {@code latency.p99}
 * @param unit     e.g. {@code ops/s} or {@code ms}
 * @param ours     our figure
 * @param peer     the peer's figure, or null where there is no peer
 * @param peerName what the peer is ({@code raw-zookeeper}, {@code curator}), or null with no peer
 * @param better   whether higher or lower is an improvement
 */
public record Figure(String bench, String metric, String unit, double ours, Double peer, String peerName, Better better) {
    public Figure {
        requireText("bench", bench);
        requireText("metric", metric);
        requireText("unit", unit);
        Objects.requireNonNull(better, "better");
        requireFinite("ours", ours);
        if (peer != null) {
            requireFinite("peer", peer);
        }
        if ((peer == null) != (peerName == null)) {
            throw new IllegalArgumentException("figure " + bench + "/" + metric + ": peer (" + peer + ") and peerName ("
                    + peerName + ") must both be present or both absent");
        }
    }

    /** A figure where higher is better (a rate). */
    public static Figure higher(String bench, String metric, String unit, double ours, Double peer, String peerName) {
        return new Figure(bench, metric, unit, ours, peer, peerName, Better.HIGHER);
    }

    /** A figure where lower is better (a latency). */
    public static Figure lower(String bench, String metric, String unit, double ours, Double peer, String peerName) {
        return new Figure(bench, metric, unit, ours, peer, peerName, Better.LOWER);
    }

    /** ours / peer, or null without a peer (or with a zero peer, where the ratio means nothing). */
    public Double ratio() {
        return peer == null || peer == 0.0 ? null : ours / peer;
    }

    private static void requireText(String name, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("figure " + name + " must not be blank, got " + (value == null ? "null" : "\"" + value + "\""));
        }
    }

    private static void requireFinite(String name, double value) {
        if (!Double.isFinite(value) || value < 0) {
            throw new IllegalArgumentException("figure " + name + " must be a finite value >= 0, got " + value);
        }
    }
}

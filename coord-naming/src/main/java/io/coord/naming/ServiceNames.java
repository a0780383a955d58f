package io.coord.naming;

import io.coord.CoordPath;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * DNS-style service names and their ZooKeeper paths, without I/O. A name is dot-separated labels,
 * most specific first, as in DNS; its path lists them the other way, most general first, so that
 * related services share a subtree: {@code orders.payments.prod} is
 * {@code <root>/prod/payments/orders}, and its instances are under
 * {@code <root>/prod/payments/orders/_instances}.
 *
 * <p>Rules (RFC 1123 host names, lower case only so one service has one spelling): 1..253
 * characters; labels of 1..63 characters from {@code a-z}, {@code 0-9} and {@code -}, not
 * starting or ending with {@code -}; no empty label (no leading, trailing or double dot).
 */
final class ServiceNames {
    static final int MAX_NAME = 253;
    static final int MAX_LABEL = 63;

    private ServiceNames() {
    }

    /**
     * Null if {@code name} is a valid service name, otherwise a sentence quoting it and naming the
     * broken rule (callers choose the exception).
     */
    static String problem(String name) {
        if (name == null) {
            return "service name is null";
        }
        if (name.isEmpty()) {
            return "service name \"\" is empty";
        }
        String quoted = quote(name);
        if (name.length() > MAX_NAME) {
            return "service name " + quoted + " is " + name.length() + " characters long, over the DNS limit of " + MAX_NAME;
        }
        if (name.indexOf('/') >= 0) {
            return "service name " + quoted + " contains '/': names are DNS-style labels separated by '.', like orders.payments.prod";
        }
        if (name.startsWith(".") || name.endsWith(".") || name.contains("..")) {
            return "service name " + quoted + " has an empty label (leading, trailing or double '.')";
        }
        for (String label : name.split("\\.", -1)) {
            String problem = labelProblem(label);
            if (problem != null) {
                return "service name " + quoted + ": " + problem;
            }
        }
        return null;
    }

    /** Null if {@code label} is a valid DNS label (also used for zones), else why not. */
    static String labelProblem(String label) {
        if (label.isEmpty()) {
            return "label \"\" is empty";
        }
        if (label.length() > MAX_LABEL) {
            return "label " + quote(label) + " is " + label.length() + " characters long, over the DNS limit of " + MAX_LABEL;
        }
        for (int i = 0; i < label.length(); i++) {
            char c = label.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                return "label " + quote(label) + " has the upper-case letter '" + c + "' at index " + i
                        + "; use lower case so each service has one spelling";
            }
            if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-')) {
                return "label " + quote(label) + " has the character " + describe(c) + " at index " + i
                        + "; labels are a-z, 0-9 and '-'";
            }
        }
        if (label.charAt(0) == '-' || label.charAt(label.length() - 1) == '-') {
            return "label " + quote(label) + " starts or ends with '-'";
        }
        return null;
    }

    /** The node of service {@code name} under {@code root}; {@code name} must be valid. */
    static CoordPath servicePath(CoordPath root, String name) {
        List<String> labels = new ArrayList<>(List.of(name.split("\\.")));
        Collections.reverse(labels);
        CoordPath path = root;
        for (String label : labels) {
            path = path.child(label);
        }
        return path;
    }

    /** The node holding the instances of service {@code name}. */
    static CoordPath instancesPath(CoordPath root, String name) {
        return servicePath(root, name).child(Layout.INSTANCES);
    }

    /** The service name of {@code path} under {@code root}, or null if it is not a valid one. */
    static String nameOf(CoordPath root, CoordPath path) {
        if (!path.startsWith(root) || path.equals(root)) {
            return null;
        }
        List<String> segments = new ArrayList<>(path.segments().subList(root.segments().size(), path.segments().size()));
        Collections.reverse(segments);
        String name = String.join(".", segments);
        return problem(name) == null ? name : null;
    }

    private static String describe(char c) {
        return c < 0x20 || c >= 0x7f ? String.format("U+%04X", (int) c) : "'" + c + "'";
    }

    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        int n = Math.min(s.length(), 80);
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            out.append(c < 0x20 || (c >= 0x7f && c <= 0x9f) ? String.format("\\u%04X", (int) c) : String.valueOf(c));
        }
        return out.append(s.length() > n ? "...\"" : "\"").toString();
    }
}

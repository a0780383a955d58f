package io.coord;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A validated, absolute ZooKeeper path. Construction is the only validation: a {@code CoordPath}
 * that exists is a path ZooKeeper accepts and that Coord allows.
 *
 * <p>Rules (ZooKeeper's {@code PathUtils.validatePath} plus Coord's own): starts with {@code /};
 * no trailing {@code /} (except the root); no empty segment ({@code /locks/order//123}); no
 * {@code .} or {@code ..} segment; no NUL, no {@code U+0001–U+001F}, {@code U+007F–U+009F},
 * {@code U+D800–U+F8FF} or {@code U+FFF0–U+FFFF}; not {@code /zookeeper} or anything under it;
 * a segment at most {@value #MAX_SEGMENT_LENGTH} characters; the whole path at most
 * {@value #MAX_PATH_LENGTH}. Every error quotes the input and names the rule.
 *
 * <p>Paths are never silently normalized: {@code /a//b} is an error, not {@code /a/b}, so that
 * two spellings can never name two different locks.
 */
public record CoordPath(String value) implements Comparable<CoordPath> {
    public static final int MAX_SEGMENT_LENGTH = 255;
    public static final int MAX_PATH_LENGTH = 1024;
    public static final CoordPath ROOT = new CoordPath("/");

    public CoordPath {
        validate(value);
    }

    /** Parses an absolute path; throws {@link InvalidPathException} naming the broken rule. */
    public static CoordPath of(String path) {
        return new CoordPath(path);
    }

    /** {@code /{first}/{rest...}}, each piece a single segment validated as a name. */
    public static CoordPath of(String first, String... rest) {
        CoordPath path = ROOT.child(first);
        for (String segment : rest) {
            path = path.child(segment);
        }
        return path;
    }

    /**
     * The child named {@code name}. The name is one segment: a {@code /} in it is an error
     * ({@link InvalidNameException}), never a way to make nested nodes.
     */
    public CoordPath child(String name) {
        validateName(name);
        return new CoordPath(isRoot() ? "/" + name : value + "/" + name);
    }

    /** The parent path; the root has none. */
    public CoordPath parent() {
        if (isRoot()) {
            throw new InvalidPathException("the root path \"/\" has no parent");
        }
        int slash = value.lastIndexOf('/');
        return slash == 0 ? ROOT : new CoordPath(value.substring(0, slash));
    }

    /** The last segment; empty for the root. */
    public String name() {
        return value.substring(value.lastIndexOf('/') + 1);
    }

    public boolean isRoot() {
        return value.equals("/");
    }

    /** True if {@code this} is {@code other} or lies below it. */
    public boolean startsWith(CoordPath other) {
        return other.isRoot() || value.equals(other.value) || value.startsWith(other.value + "/");
    }

    /** The segments from the root down; empty for the root. */
    public List<String> segments() {
        if (isRoot()) {
            return List.of();
        }
        List<String> out = new ArrayList<>();
        Collections.addAll(out, value.substring(1).split("/", -1));
        return List.copyOf(out);
    }

    /**
     * Validates one recipe name or path segment (lock resource, group, queue, member id):
     * non-empty, no {@code /}, not {@code .}/{@code ..}, no forbidden characters, at most
     * {@value #MAX_SEGMENT_LENGTH} characters.
     */
    public static String validateName(String name) {
        if (name == null) {
            throw new InvalidNameException("name is null");
        }
        if (name.isEmpty()) {
            throw new InvalidNameException("name \"\" is empty");
        }
        if (name.indexOf('/') >= 0) {
            throw new InvalidNameException("name " + quote(name)
                    + " contains '/': a name is one path segment, not a way to nest nodes");
        }
        if (name.length() > MAX_SEGMENT_LENGTH) {
            throw new InvalidNameException("name " + quote(name) + " is " + name.length()
                    + " characters long, over the limit of " + MAX_SEGMENT_LENGTH);
        }
        if (name.equals(".") || name.equals("..")) {
            throw new InvalidNameException("name " + quote(name) + " is a relative path segment");
        }
        checkCharacters(name, name, InvalidNameException::new);
        return name;
    }

    @Override
    public int compareTo(CoordPath other) {
        return value.compareTo(other.value);
    }

    @Override
    public String toString() {
        return value;
    }

    private static void validate(String path) {
        if (path == null) {
            throw new InvalidPathException("path is null");
        }
        if (path.isEmpty()) {
            throw new InvalidPathException("path \"\" is empty; paths start with '/'");
        }
        if (path.charAt(0) != '/') {
            throw new InvalidPathException("path " + quote(path) + " must start with '/' (relative paths are not allowed)");
        }
        if (path.length() == 1) {
            return;
        }
        if (path.length() > MAX_PATH_LENGTH) {
            throw new InvalidPathException("path " + quote(path.substring(0, 64) + "...") + " is " + path.length()
                    + " characters long, over the limit of " + MAX_PATH_LENGTH);
        }
        if (path.charAt(path.length() - 1) == '/') {
            throw new InvalidPathException("path " + quote(path) + " must not end with '/'");
        }
        checkCharacters(path, path, InvalidPathException::new);
        int start = 1;
        while (start <= path.length()) {
            int end = path.indexOf('/', start);
            if (end < 0) {
                end = path.length();
            }
            String segment = path.substring(start, end);
            if (segment.isEmpty()) {
                throw new InvalidPathException("path " + quote(path) + " has an empty segment at index " + start
                        + " ('//'); it would name a different node than intended");
            }
            if (segment.equals(".") || segment.equals("..")) {
                throw new InvalidPathException("path " + quote(path) + " has a relative segment " + quote(segment)
                        + " at index " + start);
            }
            if (segment.length() > MAX_SEGMENT_LENGTH) {
                throw new InvalidPathException("path " + quote(path) + " has a segment of " + segment.length()
                        + " characters, over the limit of " + MAX_SEGMENT_LENGTH);
            }
            start = end + 1;
        }
        if (path.equals("/zookeeper") || path.startsWith("/zookeeper/")) {
            throw new ReservedPathException("path " + quote(path) + " is in the /zookeeper tree, which ZooKeeper reserves");
        }
    }

    private static void checkCharacters(String text, String shown, java.util.function.Function<String, ? extends CoordException> error) {
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (c == '\u0000' || (c > '\u0000' && c <= '\u001f') || (c >= '\u007f' && c <= '\u009f')
                    || (c >= '\ud800' && c <= '\uf8ff') || (c >= '\ufff0' && c <= '\uffff')) {
                throw error.apply(quote(shown) + " contains the forbidden character U+"
                        + String.format("%04X", (int) c) + " at index " + i);
            }
        }
    }

    /** Quotes input for an error message, showing control characters as escapes. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < 0x20 || (c >= 0x7f && c <= 0x9f) || (c >= '\ud800' && c <= '\uf8ff') || c >= '\ufff0') {
                out.append(String.format("\\u%04X", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }
}

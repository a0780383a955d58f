package io.coord;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** Bad-input rows 1–7: every malformed path is refused client-side, with the input quoted. */
class CoordPathTest {

    @Test
    void row1RelativePathIsRefusedNamingIt() {
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of("a/b"));
        assertTrue(e.getMessage().contains("\"a/b\""), e.getMessage());
        assertTrue(e.getMessage().contains("must start with '/'"), e.getMessage());
    }

    @Test
    void row2TrailingSlashIsRefused() {
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of("/locks/x/"));
        assertTrue(e.getMessage().contains("\"/locks/x/\"") && e.getMessage().contains("end with '/'"), e.getMessage());
    }

    @Test
    void row3EmptySegmentNeverBecomesASecondLock() {
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of("/locks/order//123"));
        assertTrue(e.getMessage().contains("\"/locks/order//123\"") && e.getMessage().contains("empty segment"), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a/./b", "/a/../b", "/.", "/.."})
    void row4RelativeSegmentsAreRefusedNamingPathAndSegment(String path) {
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of(path));
        String segment = path.endsWith("..") || path.contains("/../") ? "\"..\"" : "\".\"";
        assertTrue(e.getMessage().contains("\"" + path + "\"") && e.getMessage().contains("relative segment " + segment),
                e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a\u0000b", "/a\u0001b", "/a\u001fb", "/a\u007fb", "/a\u009fb", "/a\ud800b", "/a\uf8ffb", "/a\ufff0b", "/a\uffffb"})
    void row5ForbiddenCharactersAreRefusedNamingTheCodePoint(String path) {
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of(path));
        String hex = String.format("U+%04X", (int) path.charAt(2));
        assertTrue(e.getMessage().contains(hex), e.getMessage());
    }

    @ParameterizedTest
    @ValueSource(strings = {"/zookeeper", "/zookeeper/x", "/zookeeper/config"})
    void row6ReservedTreeIsRefusedNamingThePath(String path) {
        ReservedPathException e = assertThrows(ReservedPathException.class, () -> CoordPath.of(path));
        assertTrue(e.getMessage().contains("\"" + path + "\"") && e.getMessage().contains("ZooKeeper reserves"), e.getMessage());
    }

    @Test
    void row6ANameThatMerelyStartsWithZookeeperIsAllowed() {
        assertEquals("/zookeeperish", CoordPath.of("/zookeeperish").value());
    }

    @Test
    void row7RecipeNameWithSlashIsRefusedNotNested() {
        InvalidNameException e = assertThrows(InvalidNameException.class, () -> CoordPath.of("/locks").child("order/123"));
        assertTrue(e.getMessage().contains("\"order/123\""), e.getMessage());
    }

    @Test
    void row7OverlongNameAndPathAreRefused() {
        String longName = "n".repeat(256);
        assertInstanceOf(InvalidNameException.class, assertThrows(InvalidPathException.class, () -> CoordPath.validateName(longName)));
        assertThrows(InvalidPathException.class, () -> CoordPath.of("/" + longName));
        StringBuilder deep = new StringBuilder();
        while (deep.length() <= CoordPath.MAX_PATH_LENGTH) {
            deep.append("/abcdefghij");
        }
        InvalidPathException e = assertThrows(InvalidPathException.class, () -> CoordPath.of(deep.toString()));
        assertTrue(e.getMessage().contains("over the limit of 1024"), e.getMessage());
    }

    @Test
    void emptyAndNullAreRefused() {
        assertThrows(InvalidPathException.class, () -> CoordPath.of(""));
        assertThrows(InvalidPathException.class, () -> CoordPath.of((String) null));
        assertThrows(InvalidNameException.class, () -> CoordPath.validateName(""));
    }

    @Test
    void helpersBuildTheLockLayoutAndNavigate() {
        CoordPath lock = CoordPath.of("locks", "order", "123");
        assertEquals("/locks/order/123", lock.value());
        assertEquals("123", lock.name());
        assertEquals(CoordPath.of("/locks/order"), lock.parent());
        assertEquals(CoordPath.ROOT, CoordPath.of("/locks").parent());
        assertEquals(List.of("locks", "order", "123"), lock.segments());
        assertTrue(lock.startsWith(CoordPath.of("/locks")));
        assertTrue(!CoordPath.of("/locksmith").startsWith(CoordPath.of("/locks")));
        assertThrows(InvalidPathException.class, CoordPath.ROOT::parent);
    }
}

package io.coord.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.coord.CoordException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import org.h2.jdbcx.JdbcDataSource;
import org.junit.jupiter.api.Test;

/** The JDBC guard against a real embedded database (H2): the database decides, inside the writer's transaction. */
class JdbcFenceGuardTest extends FenceGuardContractTest {
    private static final AtomicInteger DBS = new AtomicInteger();
    private JdbcDataSource dataSource;

    @Override
    FenceGuard newGuard() throws Exception {
        dataSource = new JdbcDataSource();
        // A named in-memory database that lives until the JVM exits; one per test.
        dataSource.setURL("jdbc:h2:mem:fence" + DBS.incrementAndGet() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000");
        JdbcFenceGuard guard = new JdbcFenceGuard(dataSource, "coord_fence");
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(guard.createTableSql());
            s.execute("CREATE TABLE ledger (id INT PRIMARY KEY, balance BIGINT NOT NULL)");
            s.execute("INSERT INTO ledger VALUES (1, 0)");
        }
        return guard;
    }

    @Test
    void aStaleHoldersTransactionWritesNothing() throws Exception {
        JdbcFenceGuard guard = (JdbcFenceGuard) newGuard();
        assertTrue(transfer(guard, token(300), 10), "current holder writes");
        assertFalse(transfer(guard, token(200), 1000), "paused old holder is fenced off");
        assertTrue(transfer(guard, token(300), 5));
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT balance FROM ledger WHERE id = 1")) {
            rs.next();
            assertEquals(15, rs.getLong(1), "the stale write never reached the ledger");
        }
        assertEquals(1, guard.rejections());
    }

    @Test
    void anOverLongResourceNameIsRefusedBeforeTheDatabaseInBothModes() throws Exception {
        JdbcFenceGuard guard = (JdbcFenceGuard) newGuard();
        String name = "r".repeat(300);
        IllegalArgumentException auto = assertThrows(IllegalArgumentException.class, () -> guard.admit(name, token(5)));
        assertTrue(auto.getMessage().contains("300") && auto.getMessage().contains(String.valueOf(JdbcFenceGuard.MAX_RESOURCE_LENGTH)),
                auto.getMessage());
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            IllegalArgumentException inTx = assertThrows(IllegalArgumentException.class, () -> guard.admit(c, name, token(5)));
            assertTrue(inTx.getMessage().contains("300"), inTx.getMessage());
            c.rollback();
        }
        assertThrows(IllegalArgumentException.class, () -> guard.admit("", token(5)));
        assertEquals(0, rows(), "nothing was admitted");
        String longest = "x".repeat(JdbcFenceGuard.MAX_RESOURCE_LENGTH);
        assertTrue(guard.admit(longest, token(5)), "a name of exactly the maximum fits the documented table");
        assertEquals(5, guard.highest(longest));
    }

    @Test
    void anInsertFailureOtherThanADuplicateIsAClearErrorAndAdmitsNothing() throws Exception {
        newGuard();
        // A table made narrower than the documented DDL: the name passes the guard's check but not the column.
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE narrow_fence (resource VARCHAR(8) PRIMARY KEY, token BIGINT NOT NULL)");
        }
        JdbcFenceGuard narrow = new JdbcFenceGuard(dataSource, "narrow_fence");
        String name = "account-12345";
        CoordException auto = assertThrows(CoordException.class, () -> narrow.admit(name, token(9)));
        assertTrue(auto.getMessage().contains(name) && auto.getMessage().contains("22001")
                && auto.getMessage().contains("narrow_fence"), auto.getMessage());
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            SQLException inTx = assertThrows(SQLException.class, () -> narrow.admit(c, name, token(9)));
            assertEquals("22001", inTx.getSQLState(), "the database's SQLState is kept for the caller");
            assertTrue(inTx.getMessage().contains(name) && inTx.getMessage().contains("narrow_fence"), inTx.getMessage());
            c.rollback();
        }
        assertEquals(0, narrow.highest(name));
        assertEquals(0, narrow.rejections(), "an error is not a rejection");
    }

    @Test
    void onlyAnIntegrityViolationCountsAsADuplicate() throws Exception {
        newGuard();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("INSERT INTO coord_fence VALUES ('dup', 1)");
            SQLException duplicate = assertThrows(SQLException.class, () -> s.execute("INSERT INTO coord_fence VALUES ('dup', 2)"));
            assertTrue(JdbcFenceGuard.isDuplicateKey(duplicate), duplicate.getSQLState());
            SQLException tooLong = assertThrows(SQLException.class,
                    () -> s.execute("INSERT INTO coord_fence VALUES ('" + "y".repeat(300) + "', 2)"));
            assertFalse(JdbcFenceGuard.isDuplicateKey(tooLong), tooLong.getSQLState());
            SQLException noTable = assertThrows(SQLException.class, () -> s.execute("INSERT INTO no_such_table VALUES (1)"));
            assertFalse(JdbcFenceGuard.isDuplicateKey(noTable), noTable.getSQLState());
        }
    }

    @Test
    void aMissingTableIsAnErrorNamingTheResource() throws Exception {
        newGuard();
        JdbcFenceGuard missing = new JdbcFenceGuard(dataSource, "no_such_fence");
        CoordException e = assertThrows(CoordException.class, () -> missing.admit("order-7", token(3)));
        assertTrue(e.getMessage().contains("order-7") && e.getMessage().contains("no_such_fence"), e.getMessage());
    }

    private long rows() throws Exception {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
             ResultSet rs = s.executeQuery("SELECT COUNT(*) FROM coord_fence")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    @Test
    void tableNameMustBeAPlainIdentifier() {
        assertThrows(IllegalArgumentException.class, () -> new JdbcFenceGuard(new JdbcDataSource(), "fence; DROP TABLE x"));
    }

    /** The pattern users follow: fence check and protected write in one transaction. */
    private boolean transfer(JdbcFenceGuard guard, io.coord.FencingToken token, long amount) throws Exception {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            if (!guard.admit(c, "ledger-1", token)) {
                c.rollback();
                return false;
            }
            try (Statement s = c.createStatement()) {
                s.executeUpdate("UPDATE ledger SET balance = balance + " + amount + " WHERE id = 1");
            }
            c.commit();
            return true;
        }
    }
}

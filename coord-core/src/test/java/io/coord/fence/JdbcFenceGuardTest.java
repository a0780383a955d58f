package io.coord.fence;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.ResultSet;
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

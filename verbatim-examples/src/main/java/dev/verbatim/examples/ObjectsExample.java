package dev.verbatim.examples;

// example:imports
import dev.verbatim.objects.Base;
import dev.verbatim.objects.Shared;
// end

/**
 * The README's distributed-objects example: two bases (here in one process, each with its own address;
 * usually two processes or hosts), an object constructed on the other base, a reference passed back and
 * forth, identity kept, and a record passed by copy that holds shared objects. Argument: the shm prefix of the two addresses (default {@code objects-example}).
 * Run with {@code --enable-native-access=ALL-UNNAMED} (shm).
 */
public final class ObjectsExample {
    private ObjectsExample() {}

    // example:types
    // Interfaces extending Shared mark what crosses by reference; everything else crosses by copy.
    public interface Account extends Shared { long deposit(long amount); long balance(); }
    public interface Ledger extends Shared { void open(Account account); Account first(); Transfer book(Transfer t); }

    // A value passed by copy may hold shared objects: they cross inside it as references, identity kept.
    public record Transfer(String memo, Account from, Account to, long amount) {}

    public static final class SavingsAccount implements Account {
        private long balance;
        public SavingsAccount(long opening) { balance = opening; }
        @Override public synchronized long deposit(long amount) { return balance += amount; }
        @Override public synchronized long balance() { return balance; }
    }

    public static final class BookLedger implements Ledger {
        private Account first;
        @Override public synchronized void open(Account account) { if (first == null) first = account; }
        @Override public synchronized Account first() { return first; }
        @Override public Transfer book(Transfer t) { t.from().deposit(-t.amount()); t.to().deposit(t.amount()); return t; }
    }
    // end

    public static void main(String[] args) {
        String prefix = args.length > 0 ? args[0] : "objects-example";
        // example:usage
        try (Base bank = Base.listen("shm:" + prefix + "-bank");            // a base: a process's home for objects
             Base branch = Base.listen("shm:" + prefix + "-branch")) {
            bank.allow(SavingsAccount.class);                                // what other bases may construct here
            bank.bind("ledger", new BookLedger());                           // a first reference by name

            // On the branch: construct an account on the bank base, and call it there.
            Account account = branch.base(bank.addresses().getFirst()).create(Account.class, SavingsAccount.class, 100L);
            account.deposit(50);
            Ledger ledger = branch.lookup(bank.addresses().getFirst(), "ledger", Ledger.class);
            ledger.open(account);                                            // a reference passed back to its home

            System.out.println("remote: " + Base.isRemote(account) + ", lives on the bank: " + branch.home(account).equals(bank.id())
                    + ", same proxy: " + (ledger.first() == account) + ", balance " + ledger.first().balance());

            Account savings = new SavingsAccount(10);                        // the branch's own: stays on the branch
            Transfer booked = ledger.book(new Transfer("rent", account, savings, 30)); // the bank calls both
            System.out.println("booked as the same objects: " + (booked.from() == account && booked.to() == savings)
                    + ", balances " + account.balance() + " and " + savings.balance());
        }
        // end
    }
}

import java.util.Locale;
import java.util.Random;

public class Main {
    static final String BASES = "ACGT";

    /** A reproducible random DNA string (the generator is seeded by the fuzz case). */
    static String randomDna(Random rng, int length) {
        StringBuilder sb = new StringBuilder(length);
        for (int i = 0; i < length; i++) {
            sb.append(BASES.charAt(rng.nextInt(BASES.length())));
        }
        return sb.toString();
    }

    <<insert solution here>>

    public static void main(String[] args) {
        Random rng = new Random(<|int;range=0,1000|>);
        double threshold = <|float;range=0.3,0.7|>;
        String[] seqs = new String[7];
        seqs[0] = <|string;length=30,60;custom=ACGT;quotes=double|>;
        seqs[1] = seqs[0].toLowerCase(Locale.ROOT);
        for (int i = 2; i < seqs.length; i++) {
            seqs[i] = randomDna(rng, 10 + rng.nextInt(50));
        }
        for (String seq : seqs) {
            double gc = gcContent(seq);
            System.out.println(String.format(Locale.ROOT, "%.6f %s", gc, gc >= threshold ? "GC-rich" : "AT-rich"));
        }
        System.out.println(String.format(Locale.ROOT, "%.6f", gcContent("")));
    }
}

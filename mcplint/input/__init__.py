"""Input: which files a run reads, the formats it reads them in, and records parsed from their lines."""

"""The difference reader: aligns a claim with an evidence sentence and names what differs."""

-- Moderation policy per organization (contract §11): what an output's score is held to, and the prompt blocklist.
ALTER TABLE organizations ADD COLUMN moderation_policy jsonb NOT NULL
  DEFAULT '{"action": "block", "threshold": 0.8, "prompt_blocklist": []}';

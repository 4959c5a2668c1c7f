// Placeholder: replaced by this target's first real file.

// Placeholder translation unit for a layer whose sources have not been written yet.

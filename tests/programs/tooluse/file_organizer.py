"""Move a report into a new archive folder (a stateful file system; reference style)."""
import json
import random
from typing import Tuple


class FileOrganizerEnv(ToolUseBaseEnv):
    def reset(self, seed=None) -> Tuple[str, dict]:
        self.turn_count = 0
        self._call_history = []
        if seed is not None:
            random.seed(seed)
        folders = ["docs", "work", "notes", "misc", "projects"]
        self._folder = random.choice(folders)
        self._file = f"report_{random.randint(100, 999)}.txt"
        self._archive = random.choice(["archive", "old", "backup", "store"])
        others = [f"file_{random.randint(1, 99)}.md" for _ in range(3)]
        self._state = {
            "cwd": "/home",
            "tree": {
                "/home": [self._folder, "temp.txt"],
                f"/home/{self._folder}": [self._file] + others,
            },
        }
        self._tools = {
            "pwd": {"description": "Print the current directory", "parameters": {"type": "object", "properties": {}}},
            "ls": {"description": "List the current directory", "parameters": {"type": "object", "properties": {}}},
            "cd": {"description": "Change directory", "parameters": {
                "type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}},
            "mkdir": {"description": "Create a directory in the current directory", "parameters": {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
            "mv": {"description": "Move a file of the current directory into a subdirectory", "parameters": {
                "type": "object", "properties": {"src": {"type": "string"}, "dst": {"type": "string"}},
                "required": ["src", "dst"]}},
            "rm": {"description": "Delete a file in the current directory", "parameters": {
                "type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}},
        }
        self._expected_answer = f"/home/{self._folder}/{self._archive}/{self._file}"
        return (f"TASK: The report file (named report_NNN.txt) is in one of the folders under /home. Move it "
                f"into a new subdirectory called '{self._archive}' of the folder it is in. Submit the report's "
                f"new full path with <answer>PATH</answer>.", {})

    def tool_pwd(self) -> str:
        return self._state["cwd"]

    def tool_ls(self) -> str:
        return json.dumps(self._state["tree"].get(self._state["cwd"], []))

    def tool_cd(self, path="") -> str:
        target = path if path.startswith("/") else f"{self._state['cwd']}/{path}"
        if target not in self._state["tree"]:
            return f"Error: directory {target} not found"
        self._state["cwd"] = target
        return f"Changed to {target}"

    def tool_mkdir(self, name="") -> str:
        new_path = f"{self._state['cwd']}/{name}"
        if new_path in self._state["tree"]:
            return f"Error: {new_path} already exists"
        self._state["tree"][new_path] = []
        self._state["tree"][self._state["cwd"]].append(name)
        return f"Created {new_path}"

    def tool_mv(self, src="", dst="") -> str:
        files = self._state["tree"].get(self._state["cwd"], [])
        if src not in files:
            return f"Error: {src} not in current dir"
        dst_path = f"{self._state['cwd']}/{dst}"
        if dst_path not in self._state["tree"]:
            return f"Error: destination {dst_path} not found"
        files.remove(src)
        self._state["tree"][dst_path].append(src)
        return f"Moved {src} to {dst}"

    def tool_rm(self, name="") -> str:
        files = self._state["tree"].get(self._state["cwd"], [])
        if name not in files:
            return f"Error: {name} not found"
        files.remove(name)
        return f"Deleted {name}"

    def _check_answer(self, answer: str) -> bool:
        moved = self._file in self._state["tree"].get(f"/home/{self._folder}/{self._archive}", [])
        return moved and answer.strip() == self._expected_answer

    def solution(self) -> str:
        calls = [("ls", {}), ("cd", {"path": self._folder}), ("mkdir", {"name": self._archive}),
                 ("mv", {"src": self._file, "dst": self._archive})]
        lines = [f"<tool_call>{json.dumps({'name': n, 'arguments': a})}</tool_call>" for n, a in calls]
        return "\n".join(lines) + f"\n<answer>{self._expected_answer}</answer>"

    def hint(self) -> str:
        return "List /home first; the report lives in the only folder there. Create the new folder before moving."

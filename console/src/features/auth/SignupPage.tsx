// Scaffold: replaced by the screen itself in the console issue.
import { NotYetPage } from '../placeholder/NotYetPage';

export default function Page() {
  return <NotYetPage screen="signup" />;
}
